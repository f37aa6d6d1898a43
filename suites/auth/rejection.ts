/**
 * Requests without a usable key are rejected with 401 (part 7 rule 3, part 5 rule 1): no key
 * at all on every endpoint, a well-formed key nobody issued, and malformed credentials in
 * both header forms. The vendor prefix is learnt from the run's real keys, never assumed.
 *
 * The requests are those of suites/_shared/every-endpoint.ts: valid wherever the seed shows the
 * shape, so the key is their only fault; what else an endpoint may answer is said there.
 */
import type { ApiRequest, CheckContext, CheckDef } from '../../src/engine/check.ts';
import { NotObservable } from '../../src/engine/finding.ts';
import { everyEndpoint } from '../_shared/every-endpoint.ts';
import { CHECK_PARALLEL, inParallel } from '../_shared/parallel.ts';
import { availableKeys, forged, learnPrefix, nearMiss, softStatus, unknownKey, wrongPrefix } from './support.ts';

/** Every endpoint of the OpenAPI document, path parameters filled with fresh uuids, answers 401 without a key. */
export const missingKey: CheckDef = {
  id: 'auth/missing-key-every-endpoint',
  title: 'A request without a key is rejected with 401 on every endpoint (where the request shape is not shown, 400 or 422; on a guessed path, 404)',
  clauses: ['AUTH-004'],
  endpoints: 'every',
  credits: 0,
  async run(ctx) {
    // --read-only: a keyless write changes nothing on a conformant server, but a broken
    // one might act on it, so only reads are sent.
    const endpoints = await everyEndpoint(ctx, { readOnly: ctx.run.readOnly });
    const answers = await inParallel(endpoints, CHECK_PARALLEL, (e) => ctx.api.send({ ...e.request, key: null }));
    for (const [i, e] of endpoints.entries()) softStatus(ctx, 'AUTH-004', answers[i]!, [401, ...e.alsoAccepted], `${e.label} without a key`);
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
  title: 'An unknown key with the right prefix is rejected with 401 (a random one on every endpoint, near-misses of a real key on two)',
  clauses: ['AUTH-005'],
  endpoints: 'every',
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
    // The random key on every endpoint, in both header forms: a route that skips the key
    // lookup is a rule forgotten on one endpoint.
    const random = candidates[0]![1];
    // Sent together, judged in order.
    const sends: { request: ApiRequest; allowed: number | number[]; what: string }[] = [];
    if (!secrets.includes(random)) {
      for (const e of await everyEndpoint(ctx, { readOnly: ctx.run.readOnly })) {
        for (const auth of ['bearer', 'x-api-key'] as const) {
          sends.push({
            request: { ...e.request, key: forged(random), auth },
            allowed: [401, ...e.alsoAccepted],
            what: `${candidates[0]![0]} (${auth === 'bearer' ? 'Bearer' : 'X-Api-Key'}) on ${e.label}`,
          });
        }
      }
    }
    for (const [label, key] of candidates.slice(1)) {
      if (secrets.includes(key)) continue;
      for (const path of PROBES) {
        for (const auth of ['bearer', 'x-api-key'] as const) {
          // Through the key field: a near-miss is almost a real secret and must be redacted too.
          sends.push({ request: { method: 'GET', path, key: forged(key), auth }, allowed: 401, what: `${label} (${auth === 'bearer' ? 'Bearer' : 'X-Api-Key'}) on GET ${path}` });
        }
      }
    }
    const answers = await inParallel(sends, CHECK_PARALLEL, (s) => ctx.api.send(s.request));
    for (const [i, s] of sends.entries()) softStatus(ctx, 'AUTH-005', answers[i]!, s.allowed, s.what);
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
  title: 'A malformed key (wrong prefix, no underscore, empty, wrong scheme, inner whitespace) is rejected with 401, on every endpoint',
  clauses: ['AUTH-006'],
  endpoints: 'every',
  credits: 0,
  async run(ctx) {
    const { prefix, sample } = prefixAndSecrets(ctx);
    const cases = malformedCases(prefix, sample);
    // Sent together, judged in order.
    const sends: { request: ApiRequest; allowed: number | number[]; what: string }[] = [];
    for (const [label, credential] of cases) {
      for (const path of PROBES) sends.push({ request: { method: 'GET', path, ...credential }, allowed: 401, what: `${label} on GET ${path}` });
    }
    // Every endpoint, two forms each, in rotation (so every form reaches several endpoints): a
    // route that parses credentials its own way is a rule forgotten on one endpoint.
    const endpoints = await everyEndpoint(ctx, { readOnly: ctx.run.readOnly });
    for (const [i, e] of endpoints.entries()) {
      for (const [label, credential] of [cases[(2 * i) % cases.length]!, cases[(2 * i + 1) % cases.length]!]) {
        sends.push({ request: { ...e.request, ...credential }, allowed: [401, ...e.alsoAccepted], what: `${label} on ${e.label}` });
      }
    }
    const answers = await inParallel(sends, CHECK_PARALLEL, (s) => ctx.api.send(s.request));
    for (const [i, s] of sends.entries()) softStatus(ctx, 'AUTH-006', answers[i]!, s.allowed, s.what);
  },
};
