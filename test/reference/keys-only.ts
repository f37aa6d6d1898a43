/**
 * Keys-only runs against the reference, as a staging user without the test-control protocol
 * runs the suite: the operator (this helper, through the control protocol) mints the keys that
 * examples/profiles/supplied-keys.json names, in one workspace, with the role and scopes
 * docs/configuration.md gives each; the run is then resolved from that profile and the
 * environment variables it names, exactly as `wgc run --target` resolves it, and never sees the
 * control URL. Optionally earlier runs' left-overs fill the workspace first and a noisy
 * neighbour (noisy-neighbour.ts) writes to it throughout.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { runContextFor } from '../../src/cli/run.ts';
import { resolveConfig } from '../../src/config/index.ts';
import { createControlClient } from '../../src/control/client.ts';
import { keyNeeds, suggestKeys } from '../../src/docs/keys.ts';
import type { CheckResult, SuiteDef } from '../../src/engine/check.ts';
import { planCredits } from '../../src/engine/credits.ts';
import { discoverSuites, loadSuiteDefs } from '../../src/engine/discover.ts';
import { runSuitesInProcess } from '../../src/engine/run.ts';
import { startReference, type VariantName } from '../../src/reference/index.ts';
import { seedLeftovers, startNoisyNeighbour, type NeighbourStats } from './noisy-neighbour.ts';

const SUITES_DIR = fileURLToPath(new URL('../../suites/', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const PROFILE = fileURLToPath(new URL('../../examples/profiles/supplied-keys.json', import.meta.url));

export async function loadAllSuites(): Promise<SuiteDef[]> {
  return loadSuiteDefs(await discoverSuites(SUITES_DIR), ROOT);
}

export interface KeysOnlyOptions {
  variant: VariantName;
  seed: number;
  /** Suites side by side (--concurrency). */
  concurrency: number;
  /** Definitions of earlier runs (other prefixes, every third archived) written before the run. */
  leftovers?: number;
  /** A noisy neighbour writes to the workspace throughout the run, pausing this long between calls. */
  neighbourIntervalMs?: number;
}

export interface KeysOnlyRun {
  options: KeysOnlyOptions;
  results: CheckResult[];
  runErrors: string[];
  requests: number;
  durationMs: number;
  /** What the run's own calls were charged, per the workspace's usage ledger once it settled. */
  charged: number;
  /** The credit plan's ceiling for the run. */
  ceiling: number;
  neighbour?: NeighbourStats;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Reads the ledger until it has not moved for `quietMs` (at most 15 s): lagging charges land. */
async function settledCharge(read: () => Promise<number>, quietMs = 3_000): Promise<number> {
  let value = await read();
  for (let waited = 0, still = 0; still < quietMs && waited < 15_000; waited += 500) {
    await sleep(500);
    const next = await read();
    still = next === value ? still + 500 : 0;
    value = next;
  }
  return value;
}

/** One keys-only run of every suite against a fresh reference of `variant`. */
export async function runKeysOnly(suites: readonly SuiteDef[], opts: KeysOnlyOptions): Promise<KeysOnlyRun> {
  const ref = await startReference({ variant: opts.variant });
  const control = createControlClient({ controlUrl: ref.controlUrl, token: ref.controlToken, http: { timeoutMs: 10_000 } });
  try {
    // The operator's side: the documented keys, one member per role, in one workspace.
    const suggested = new Map(suggestKeys(keyNeeds(suites)).map((k) => [k.name, k]));
    const profile = JSON.parse(readFileSync(PROFILE, 'utf8')) as { keys: { name: string; env: string }[] };
    const { workspaceId } = await control.createWorkspace();
    const members = new Map<string, string>();
    const member = async (role: 'owner' | 'admin' | 'analyst' | 'member'): Promise<string> => {
      if (!members.has(role)) members.set(role, (await control.addMember(workspaceId, role)).userId);
      return members.get(role)!;
    };
    const env: Record<string, string> = {};
    for (const k of profile.keys) {
      const s = suggested.get(k.name);
      if (!s) throw new Error(`${PROFILE} names key "${k.name}", which docs/configuration.md does not suggest`);
      env[k.env] = (await control.createKey(workspaceId, await member(s.role), s.scopes)).secret;
    }
    const neighbourKey = (await control.createKey(workspaceId, await member('owner'), ['graph:read', 'admin'])).secret;
    if (opts.leftovers) await seedLeftovers(ref.baseUrl, neighbourKey, opts.leftovers);

    // The user's side: the documented profile and its environment, no control protocol.
    const { config } = resolveConfig({
      argv: ['--target', PROFILE, '--base-url', ref.baseUrl, '--seed', String(opts.seed), '--concurrency', String(opts.concurrency)],
      env,
      readFile: (p) => readFileSync(p, 'utf8'),
    });
    const run = runContextFor(config, { baseUrl: ref.baseUrl });
    const ceiling = planCredits(suites, run).ceiling;
    const before = (await control.usage(workspaceId)).charged;
    let stats: NeighbourStats | undefined;
    const neighbour = opts.neighbourIntervalMs !== undefined ? startNoisyNeighbour(ref.baseUrl, neighbourKey, { intervalMs: opts.neighbourIntervalMs, seed: opts.seed }) : undefined;
    const started = Date.now();
    const out = await runSuitesInProcess(suites, run, { concurrency: config.concurrency }).finally(async () => {
      stats = await neighbour?.stop();
    });
    const durationMs = Date.now() - started;
    const after = await settledCharge(async () => (await control.usage(workspaceId)).charged);
    return {
      options: opts,
      results: out.results,
      runErrors: out.runErrors,
      requests: out.requests,
      durationMs,
      charged: after - before - (stats?.answered2xx ?? 0),
      ceiling,
      ...(stats ? { neighbour: stats } : {}),
    };
  } finally {
    await control.close();
    await ref.close();
  }
}

/** "checkId: outcome (reason or first finding)" for checks that failed or broke. */
export function problems(r: KeysOnlyRun): string[] {
  return [
    ...r.results
      .filter((c) => c.outcome === 'failed' || c.outcome === 'harnessError')
      .map((c) => `${c.checkId}: ${c.outcome} ${c.reason ?? ''} ${c.findings.map((f) => `${f.clause}: ${f.message}`).join(' | ')}`.slice(0, 600)),
    ...r.runErrors,
  ];
}
