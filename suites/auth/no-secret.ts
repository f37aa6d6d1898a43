/**
 * A key secret is never sent to anyone (part 5 rule 9). Exchanges are redacted when captured:
 * every secret the run knows (and its URL-, base64- and JSON-escaped forms) is replaced by a
 * "[REDACTED:<label>]" marker (src/http/redact.ts). So a response whose body or header values
 * hold a marker echoed a secret. The sweep covers every GET endpoint and error paths, with
 * each cast key.
 */
import type { ApiRequest, CheckContext, CheckDef, KeyHandle } from '../../src/engine/check.ts';
import { Finding, NotObservable } from '../../src/engine/finding.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { REDACTION_MARKER_RE } from '../../src/http/redact.ts';
import { loadSpec } from '../../src/spec/load.ts';
import { soft } from './soft.ts';
import { availableKeys, FORGED_LABEL, freshId, provisionKey } from './support.ts';
import { CHECK_PARALLEL, inParallel, WIDE_PARALLEL } from '../_shared/parallel.ts';

/**
 * Markers that are not a key the server issued: the control token (the harness's) and the
 * credentials other checks forged (an echo of those is the server repeating our input).
 */
const NOT_KEY_LABELS = new Set(['control_token', FORGED_LABEL]);

/** The labels of key-secret markers in the response's body and header values. */
function leakedLabels(ex: Exchange): string[] {
  const res = ex.response;
  if (!res) return [];
  const text = [res.text, ...Object.entries(res.headers).map(([n, v]) => `${n}: ${v}`)].join('\n');
  const labels = [...text.matchAll(REDACTION_MARKER_RE)].map((m) => m[1]!);
  return [...new Set(labels)].filter((l) => !NOT_KEY_LABELS.has(l));
}

/** Records a finding when the exchange's response echoed a secret. */
function expectNoSecret(ctx: CheckContext, ex: Exchange, what: string): void {
  if (!ex.response) return;
  ctx.judged('AUTH-013');
  const labels = leakedLabels(ex);
  if (labels.length === 0) return;
  soft(ctx, () => {
    throw new Finding({
      clause: 'AUTH-013',
      message: `${what}: the response contains a key secret (shown redacted as ${labels.map((l) => `[REDACTED:${l}]`).join(', ')})`,
      expected: 'no key secret in the body or the headers',
      received: `secret(s) of ${labels.join(', ')}`,
      exchange: ex,
    });
  });
}

/** Requests of the sweep for one key: every GET endpoint (ids fresh), then error paths. */
async function sweepRequests(key: KeyHandle, other: KeyHandle | undefined): Promise<[string, ApiRequest][]> {
  const spec = await loadSpec();
  const out: [string, ApiRequest][] = spec.operations.filter((op) => op.method === 'GET').map((op) => [`GET ${op.path}`, { method: 'GET', path: op.path.replace(/\{[^}]+\}/g, () => freshId()), key }]);
  out.push(
    ['an unknown route', { method: 'GET', path: `/no-such-endpoint-${freshId()}`, key }],
    ['an out-of-range limit', { method: 'GET', path: '/definitions', key, query: { limit: 0 } }],
    ['a malformed account id', { method: 'GET', path: '/data/accounts/not-a-uuid', key }],
    ['the key in the X-Api-Key form', { method: 'GET', path: '/me', key, auth: 'x-api-key' }],
    // A wrong scheme carrying the real key: error messages are where servers tend to echo.
    ['the key under the Basic scheme', { method: 'GET', path: '/me', key: null, headers: { authorization: `Basic ${key.secret}` } }],
    ['the key with trailing garbage', { method: 'GET', path: '/me', key: null, headers: { authorization: `Bearer ${key.secret} x` } }],
  );
  if (other) out.push(['two different keys at once', { method: 'GET', path: '/me', key, headers: { 'x-api-key': other.secret } }]);
  return out;
}

/** Every GET endpoint and several error paths, with each cast key, answer without any key secret. */
export const noSecretInResponses: CheckDef = {
  id: 'auth/no-secret-in-responses',
  title: 'No response contains a key secret, in its body or its headers',
  clauses: ['AUTH-013'],
  // GET /definitions, /data/icps and /data/relationships answer 2xx for the two cast keys with
  // graph:read (owner, reader; the admin cast key holds admin only); the other billed GETs name
  // fresh ids or lack their parameters and are refused (free).
  credits: 2 * 3,
  // Every billed GET endpoint (six) answering 2xx, for each of the three cast keys.
  maxCredits: 3 * 6,
  async run(ctx) {
    const keys = availableKeys(ctx);
    if (keys.length === 0) throw new NotObservable('no cast key is available on this target');
    const sweep: { what: string; req: ApiRequest }[] = [];
    for (const [i, key] of keys.entries()) {
      for (const [what, req] of await sweepRequests(key, keys[(i + 1) % keys.length] === key ? undefined : keys[(i + 1) % keys.length])) sweep.push({ what: `${what} with the ${key.name} key`, req });
    }
    // Sent together (independent reads), judged in order.
    const sent = await inParallel(sweep, WIDE_PARALLEL, ({ req }) => ctx.api.send(req));
    let answered = 0;
    for (const [i, ex] of sent.entries()) {
      if (ex.response) answered += 1;
      expectNoSecret(ctx, ex, sweep[i]!.what);
    }
    // A sweep that got no answer at all has seen nothing that could have leaked.
    if (answered === 0) throw new NotObservable('no request of the sweep got an answer, so no response could be inspected');
    // A rejected key's own error answer (with control: a key revoked for the purpose).
    if (!ctx.run.hasControl) return;
    const revoked = await provisionKey(ctx, ctx.workspaceId, 'analyst', ['graph:read'], 'revoked_for_sweep');
    await ctx.control.revokeKey(revoked.keyId!);
    const forms = ['bearer', 'x-api-key'] as const;
    const rejected = await inParallel(forms, CHECK_PARALLEL, (auth) => ctx.api.send({ method: 'GET', path: '/definitions', key: revoked, auth }));
    for (const [i, ex] of rejected.entries()) expectNoSecret(ctx, ex, `a revoked key (${forms[i]})`);
  },
};
