/**
 * The basics of part 5 rule 1 and part 9: a key sent as Bearer is accepted under /api/v1,
 * GET /capabilities answers every valid key, and key secrets share one vendor prefix.
 */
import type { CheckDef } from '../../src/engine/check.ts';
import { describeResponse, expectResponse } from '../../src/engine/expect.ts';
import { Finding, NotObservable } from '../../src/engine/finding.ts';
import { soft } from './soft.ts';
import { isObject } from '../_shared/json.ts';
import { availableKeys, learnPrefix } from './support.ts';
import { loadSpec } from '../../src/spec/load.ts';
import { readLiveCatalog } from '../../src/target/live-catalog.ts';

/** Every cast key, sent as Authorization: Bearer to GET /me under /api/v1, gets 2xx with a JSON object. */
export const bearerAccepted: CheckDef = {
  id: 'auth/bearer-accepted',
  title: 'A key sent as Authorization: Bearer is accepted, and the API answers under /api/v1',
  clauses: ['AUTH-001', 'VER-001'],
  credits: 0,
  async run(ctx) {
    const keys = availableKeys(ctx);
    if (keys.length === 0) throw new NotObservable('no cast key is available on this target');
    for (const key of keys) {
      const ex = await ctx.api.send({ method: 'GET', path: '/me', key, auth: 'bearer' });
      const res = expectResponse('AUTH-001', ex);
      // The answer is looked at for both: a 404 is the prefix's (VER-001), anything else non-2xx the Bearer key's.
      ctx.judged('AUTH-001');
      ctx.judged('VER-001');
      if (res.status >= 200 && res.status < 300 && res.isJson && isObject(res.json)) continue;
      // A 404 means nothing answers at /api/v1/me: the prefix (VER-001). Anything else is the
      // key not being accepted as Bearer (AUTH-001).
      const clause = res.status === 404 ? 'VER-001' : 'AUTH-001';
      soft(ctx, () => {
        throw new Finding({
          clause,
          message: res.status === 404 ? 'GET /api/v1/me answered 404: the API does not answer under /api/v1' : `a valid key sent as Bearer was not accepted by GET /me (cast "${key.name}")`,
          expected: '2xx with the key introspection object',
          received: describeResponse(res),
          exchange: ex,
        });
      });
    }
  },
};

/** GET /capabilities answers every cast key with 2xx and JSON (the seed shows no shape: object or array). */
export const capabilitiesAnswer: CheckDef = {
  id: 'auth/capabilities-answers-every-key',
  title: 'GET /capabilities answers any valid key with 2xx and a JSON body',
  clauses: ['VER-003'],
  credits: 0,
  async run(ctx) {
    const keys = availableKeys(ctx);
    if (keys.length === 0) throw new NotObservable('no cast key is available on this target');
    const known = Object.keys((await loadSpec()).catalogOperations);
    for (const key of keys) {
      const ex = await ctx.api.send({ method: 'GET', path: '/capabilities', key });
      const res = expectResponse('VER-003', ex);
      ctx.judged('VER-003');
      if (res.status < 200 || res.status > 299 || !res.isJson) {
        throw new Finding({
          clause: 'VER-003',
          message: `GET /capabilities did not answer a valid key (cast "${key.name}") with 2xx and a JSON body`,
          expected: '2xx with a JSON body',
          received: describeResponse(res),
          exchange: ex,
        });
      }
      // The live catalog the run saw, for the report and `wgc diff` (part 9 rule 2).
      ctx.note({ liveCatalog: readLiveCatalog(res.json, known, capabilitiesAnswer.id) });
    }
  },
};

/**
 * The secrets of every key the run holds have the form <prefix>_<rest>, with one prefix for
 * all of them. The secrets never enter the finding: only their lengths and the shape.
 */
export const vendorPrefix: CheckDef = {
  id: 'auth/vendor-prefix',
  title: 'Key secrets carry one fixed vendor prefix followed by an underscore',
  clauses: ['AUTH-003'],
  credits: 0,
  async run(ctx) {
    const secrets = [...new Set(availableKeys(ctx).map((k) => k.secret))];
    if (secrets.length < 2) throw new NotObservable('needs the secrets of at least two different keys to see a fixed prefix');
    ctx.judged('AUTH-003');
    const noUnderscore = secrets.filter((s) => s.indexOf('_') < 1);
    if (noUnderscore.length > 0) {
      throw new Finding({
        clause: 'AUTH-003',
        message: `${noUnderscore.length} of ${secrets.length} key secrets have no vendor prefix followed by an underscore`,
        expected: 'every secret of the form <prefix>_<rest>',
        received: noUnderscore.map((s) => `a ${s.length}-character secret ${s.includes('_') ? 'starting with "_"' : 'without any underscore'}`).join('; '),
      });
    }
    if (learnPrefix(secrets) === undefined) {
      // Show each secret's part before its first underscore only when it is short enough to
      // be a vendor prefix; a longer head may be secret material.
      const heads = [...new Set(secrets.map((s) => s.slice(0, s.indexOf('_') + 1)))].map((h) => (h.length <= 10 ? JSON.stringify(h) : `(${h.length} characters)`));
      throw new Finding({
        clause: 'AUTH-003',
        message: 'the key secrets do not share one prefix ending with an underscore',
        expected: 'one fixed <prefix>_ shared by every key',
        received: `parts up to the first underscore: ${heads.join(', ')}`,
      });
    }
  },
};
