/**
 * The capability switches of seed 2.4 that GET /me shows for a key, with their values: what a
 * check that switches capabilities through the control protocol restores afterwards. Switches
 * of the server's own are left out (the control protocol switches 2.4's names).
 */
import type { CheckContext, KeyHandle } from '../../src/engine/check.ts';
import { CAPABILITY_FIELDS, pick } from './documented.ts';
import { isObject } from './json.ts';

/** 2.4's boolean switches as GET /me shows them for `key` (empty when it shows none). */
export async function capabilitySwitches(ctx: CheckContext, key: KeyHandle): Promise<Record<string, boolean>> {
  const me = await ctx.api.send({ method: 'GET', path: '/me', key });
  const caps = isObject(me.response?.json) ? me.response.json.capabilities : undefined;
  return isObject(caps) ? Object.fromEntries(Object.entries(pick(caps, CAPABILITY_FIELDS)).filter((e): e is [string, boolean] => typeof e[1] === 'boolean')) : {};
}
