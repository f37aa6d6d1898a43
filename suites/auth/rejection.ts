/**
 * Requests without a usable key are rejected with 401 (part 7 rule 3, part 5 rule 1): no key
 * at all on every endpoint, a well-formed key nobody issued, and malformed credentials in
 * both header forms. The vendor prefix is learnt from the run's real keys, never assumed.
 *
 * A keyless request is sent with a request the suite knows to be valid wherever the seed shows
 * the shape, so the missing key is its only fault and 401 is the answer. Where the seed does
 * not show the request shape (x-wgc-request-not-shown: the endpoints of 4.9), the request may
 * be invalid too, and part 7 rule 4 leaves open which of two faults a server answers first: a
 * refusal as invalid (400, or 422) rejects the keyless call as well. A path the seed never
 * names (x-wgc-guessed: /data/icps) may not exist on the server, which may route before it
 * authenticates: 404 there is no answer about the key.
 */
import { randomUUID } from 'node:crypto';
import type { ApiRequest, CheckContext, CheckDef } from '../../src/engine/check.ts';
import { INVALID_STATUSES } from '../../src/engine/expect.ts';
import { NotObservable } from '../../src/engine/finding.ts';
import { loadSpec, type LoadedSpec, type OperationInfo } from '../../src/spec/load.ts';
import { minimalCreateBody } from '../_shared/definitions.ts';
import { availableKeys, forged, freshId, learnPrefix, nearMiss, softStatus, unknownKey, wrongPrefix } from './lib.ts';

/** A plausible body per endpoint, so a server that validates before authenticating still has no excuse. */
function bodyFor(ctx: CheckContext, operationId: string): unknown {
  switch (operationId) {
    case 'createDefinition':
      return minimalCreateBody(ctx);
    case 'updateDefinition':
    case 'archiveDefinition':
      return { reason: 'conformance check' };
    case 'mergeDefinitionValue':
      return { fromSlug: 'a', intoSlug: 'b', reason: 'conformance check' };
    case 'submitOperation':
      // graph.apply_update with the arguments 4.8 shows (ids of nothing: existence is looked up
      // only once the workspace is known, from the key).
      return {
        operation: 'graph.apply_update',
        arguments: {
          customer_id: randomUUID(),
          summary: 'conformance check',
          changes: [{ kind: 'person_field', target_label: 'Title', person_id: randomUUID(), field: 'title', after: 'x' }],
        },
        reason: 'conformance check',
      };
    default:
      return {};
  }
}

/** The operation's x-wgc marker `name` (an explanation string), if the document sets one. */
function marker(spec: LoadedSpec, op: OperationInfo, name: string): string | undefined {
  const paths = spec.document['paths'] as Record<string, Record<string, Record<string, unknown>>> | undefined;
  const value = paths?.[op.path]?.[op.method.toLowerCase()]?.[name];
  return typeof value === 'string' ? value : undefined;
}

/** What a keyless request to `op` may be answered (see the module comment). */
function keylessStatuses(spec: LoadedSpec, op: OperationInfo): number[] {
  return [
    401,
    ...(marker(spec, op, 'x-wgc-request-not-shown') !== undefined ? INVALID_STATUSES : []),
    ...(marker(spec, op, 'x-wgc-guessed') !== undefined ? [404] : []),
  ];
}

/** Every endpoint of the OpenAPI document, path parameters filled with fresh uuids, answers 401 without a key. */
export const missingKey: CheckDef = {
  id: 'auth/missing-key-every-endpoint',
  title: 'A request without a key is rejected with 401 on every endpoint (where the request shape is not shown, 400 or 422; on a guessed path, 404)',
  clauses: ['AUTH-004'],
  credits: 0,
  async run(ctx) {
    const spec = await loadSpec();
    for (const op of spec.operations) {
      // --read-only: a keyless write changes nothing on a conformant server, but a broken
      // one might act on it, so only reads are sent.
      if (ctx.run.readOnly && op.method !== 'GET') continue;
      const path = op.path.replace(/\{[^}]+\}/g, () => freshId());
      const req: ApiRequest = { method: op.method as ApiRequest['method'], path, key: null };
      if (op.requestBodySchema) req.body = bodyFor(ctx, op.operationId);
      const ex = await ctx.api.send(req);
      softStatus(ctx, 'AUTH-004', ex, keylessStatuses(spec, op), `${op.method} ${op.path} without a key`);
    }
  },
};

/** The learnt prefix and the real secrets, or not observable when the keys show no prefix. */
function prefixAndSecrets(ctx: CheckContext): { prefix: string; secrets: string[]; sample: string } {
  const keys = availableKeys(ctx);
  const secrets = [...new Set(keys.map((k) => k.secret))];
  const prefix = learnPrefix(secrets);
  if (keys.length === 0) throw new NotObservable('no cast key is available on this target');
  if (!prefix) throw new NotObservable('the vendor prefix cannot be learnt: the known key secrets share no <prefix>_ (see AUTH-003)');
  return { prefix, secrets, sample: keys[0]!.secret };
}

/** Reads that any valid key (GET /me) or a graph:read key (GET /definitions) may call. */
const PROBES = ['/me', '/definitions'] as const;

/** A well-formed key with the right prefix that was never issued gets 401, as Bearer and as X-Api-Key. */
export const unknownKeyRejected: CheckDef = {
  id: 'auth/unknown-key-rejected',
  title: 'An unknown key with the right prefix is rejected with 401',
  clauses: ['AUTH-005'],
  credits: 0,
  async run(ctx) {
    const { prefix, secrets, sample } = prefixAndSecrets(ctx);
    // A random key, and real keys with their last or first character after the prefix changed
    // (a server that compares only part of the secret accepts those).
    const candidates: [string, string][] = [
      ['a random key with the learnt prefix', unknownKey(prefix, secrets)],
      ['a real key with its last character changed', nearMiss(sample, -1)],
      ['a real key with its first character after the prefix changed', nearMiss(sample, prefix.length)],
    ];
    for (const [label, key] of candidates) {
      if (secrets.includes(key)) continue;
      for (const path of PROBES) {
        for (const auth of ['bearer', 'x-api-key'] as const) {
          // Through the key field: a near-miss is almost a real secret and must be redacted too.
          const ex = await ctx.api.send({ method: 'GET', path, key: forged(key), auth });
          softStatus(ctx, 'AUTH-005', ex, 401, `${label} (${auth === 'bearer' ? 'Bearer' : 'X-Api-Key'}) on GET ${path}`);
        }
      }
    }
  },
};

/** How a credential goes out: through the client's key field (so it is redacted), or as raw headers. */
type Credential = Pick<ApiRequest, 'key' | 'auth' | 'headers'>;

/**
 * Malformed credentials, as (label, credential). Built from a real secret so that a server
 * that tolerates the malformation would accept them: that is what makes each case meaningful.
 * Anything carrying secret material goes through the key field, which registers it for
 * redaction, so an echo of it can never reach a report.
 */
function malformedCases(prefix: string, secret: string): [string, Credential][] {
  const rest = secret.slice(prefix.length);
  const mid = Math.max(1, Math.floor(secret.length / 2));
  const spaced = `${secret.slice(0, mid)} ${secret.slice(mid)}`;
  // base64 of the secret itself: a form the redaction registry already knows.
  const basic = Buffer.from(secret, 'utf8').toString('base64');
  const viaKey = (value: string, auth: 'bearer' | 'x-api-key'): Credential => ({ key: forged(value), auth });
  return [
    ['Bearer, wrong prefix', viaKey(`${wrongPrefix(prefix)}${rest}`, 'bearer')],
    ['Bearer, prefix without its underscore', viaKey(`${prefix.slice(0, -1)}${rest}`, 'bearer')],
    ['Bearer, key with inner whitespace', viaKey(spaced, 'bearer')],
    ['Bearer with no token', { key: null, headers: { authorization: 'Bearer' } }],
    ['empty Authorization header', { key: null, headers: { authorization: '' } }],
    ['Basic scheme with a valid key', { key: null, headers: { authorization: `Basic ${basic}` } }],
    ['X-Api-Key, wrong prefix', viaKey(`${wrongPrefix(prefix)}${rest}`, 'x-api-key')],
    ['X-Api-Key, prefix without its underscore', viaKey(`${prefix.slice(0, -1)}${rest}`, 'x-api-key')],
    ['X-Api-Key, key with inner whitespace', viaKey(spaced, 'x-api-key')],
    // Raw: it holds the whole real secret, which the registry already redacts under its own label.
    ['X-Api-Key with a scheme before a valid key', { key: null, headers: { 'x-api-key': `Bearer ${secret}` } }],
    ['empty X-Api-Key header', { key: null, headers: { 'x-api-key': '' } }],
  ];
}

/** Malformed keys and Authorization headers get 401 in both header forms. */
export const malformedKeyRejected: CheckDef = {
  id: 'auth/malformed-key-rejected',
  title: 'A malformed key (wrong prefix, no underscore, empty, wrong scheme, inner whitespace) is rejected with 401',
  clauses: ['AUTH-006'],
  credits: 0,
  async run(ctx) {
    const { prefix, sample } = prefixAndSecrets(ctx);
    for (const [label, credential] of malformedCases(prefix, sample)) {
      for (const path of PROBES) {
        const ex = await ctx.api.send({ method: 'GET', path, ...credential });
        softStatus(ctx, 'AUTH-006', ex, 401, `${label} on GET ${path}`);
      }
    }
  },
};
