/**
 * Shared by the tests of running the suite from CI (issue 19): a child process with a bound
 * (killed with its process group when it overruns, so a hang fails the test), started with a
 * clean environment (none of the caller's WGC_*, proxy, CA or GitHub variables), and reference
 * targets holding keys minted through their control protocol, as an operator would hand them out.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createControlClient } from '../../src/control/client.ts';
import type { Role, Scope } from '../../src/vocabulary.ts';
import { startReference, type RunningReference } from '../../src/reference/index.ts';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const WGC_BIN = fileURLToPath(new URL('../../bin/wgc.mjs', import.meta.url));

/** Variables a test's child must not inherit: the caller's configuration would change the run. */
const INHERITED_NOT = /^(WGC_|GITHUB_|RUNNER_|NODE_EXTRA_CA_CERTS$|NODE_OPTIONS$|VITEST|(https?|no|all)_proxy$)/i;

/** process.env without WGC_*, proxy, CA, GitHub and vitest variables, with npm's lifecycle scripts off, plus `extra`. */
export function cleanEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!INHERITED_NOT.test(k)) env[k] = v;
  // The checkout installed as a folder (the action's package input, a project's npm install)
  // would run its `prepare`, rebuilding this checkout's dist/ under every other test running it.
  env.npm_config_ignore_scripts = 'true';
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) env[k] = v;
  return env;
}

export interface ChildOutcome {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
  killed: boolean;
}

/** Runs `command args` to completion (or kills its process group after `killAfterMs`). */
export async function runChild(command: string, args: readonly string[], opts: { cwd: string; env: NodeJS.ProcessEnv; killAfterMs: number }): Promise<ChildOutcome> {
  const started = Date.now();
  const child = spawn(command, args, { cwd: opts.cwd, env: opts.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  let killed = false;
  const killer = setTimeout(() => {
    killed = true;
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }, opts.killAfterMs);
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (c) => resolve(c));
  }).finally(() => clearTimeout(killer));
  return { code, stdout, stderr, ms: Date.now() - started, killed };
}

/** `node bin/wgc.mjs <args>` in `cwd`. */
export function runWgc(args: readonly string[], opts: { cwd: string; env: NodeJS.ProcessEnv; killAfterMs?: number }): Promise<ChildOutcome> {
  return runChild(process.execPath, [WGC_BIN, ...args], { killAfterMs: 60_000, ...opts });
}

/** The keys the errors suite casts (docs/configuration.md): an owner with every scope, an analyst with graph:write only. */
export const ERRORS_SUITE_KEYS: readonly { role: Role; scopes: readonly Scope[] }[] = [
  { role: 'owner', scopes: ['graph:read', 'graph:write', 'research:run', 'crm:read', 'crm:write', 'admin'] },
  { role: 'analyst', scopes: ['graph:write'] },
];

/** A reference target (with the named faults) and secrets of keys minted in one workspace of it (in the order asked). */
export async function referenceWithKeys(keys: readonly { role: Role; scopes: readonly Scope[] }[], faults: readonly string[] = []): Promise<{ ref: RunningReference; secrets: string[] }> {
  const ref = await startReference({ faults });
  const control = createControlClient({ controlUrl: ref.controlUrl, token: ref.controlToken, http: { timeoutMs: 10_000 } });
  try {
    const { workspaceId } = await control.createWorkspace();
    const secrets: string[] = [];
    for (const k of keys) {
      const { userId } = await control.addMember(workspaceId, k.role);
      secrets.push((await control.createKey(workspaceId, userId, k.scopes)).secret);
    }
    return { ref, secrets };
  } catch (e) {
    await ref.close();
    throw e;
  } finally {
    await control.close();
  }
}
