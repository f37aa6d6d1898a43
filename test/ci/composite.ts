/**
 * Runs a composite GitHub Action (action.yml) on this machine the way the runner does, for the
 * parts a test can reproduce without GitHub: inputs with their defaults, `${{ }}` expressions
 * (inputs.*, steps.<id>.outputs.*, always(), ==, !=, &&, '' literals), each step's `if` (an
 * expression without a status function implies success()), `env`, `working-directory`, and
 * `run` scripts through `bash --noprofile --norc -eo pipefail` with fresh GITHUB_OUTPUT files
 * read back as step outputs, one GITHUB_STEP_SUMMARY, GITHUB_ENV, GITHUB_RUN_NUMBER.
 * `uses:` steps are handed to `uses` callbacks (the test emulates actions/upload-artifact by
 * copying what it would upload); an action without a callback is recorded as skipped.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { runChild } from './helpers.ts';

export interface ActionInput {
  description?: string;
  required?: boolean;
  default?: string;
}

export interface ActionStep {
  name?: string;
  id?: string;
  if?: string;
  uses?: string;
  with?: Record<string, string | number | boolean>;
  run?: string;
  shell?: string;
  env?: Record<string, string>;
  'working-directory'?: string;
}

export interface CompositeAction {
  name: string;
  inputs: Record<string, ActionInput>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: ActionStep[] };
}

export function readAction(path: string): CompositeAction {
  return parse(readFileSync(path, 'utf8')) as CompositeAction;
}

interface Context {
  inputs: Record<string, string>;
  steps: Record<string, { outputs: Record<string, string> }>;
  failed: boolean;
}

/** Evaluates the small expression language the action uses; throws on anything else. */
export function evaluate(expr: string, ctx: Context): string | boolean {
  const e = expr.trim();
  const and = splitTop(e, '&&');
  if (and.length > 1) return and.every((part) => truthy(evaluate(part, ctx)));
  for (const op of ['!=', '==']) {
    const sides = splitTop(e, op);
    if (sides.length === 2) {
      const equal = String(evaluate(sides[0]!, ctx)).toLowerCase() === String(evaluate(sides[1]!, ctx)).toLowerCase();
      return op === '==' ? equal : !equal;
    }
  }
  if (e.startsWith('!')) return !truthy(evaluate(e.slice(1), ctx));
  if (e === 'always()') return true;
  if (e === 'success()') return !ctx.failed;
  if (e === 'failure()') return ctx.failed;
  if (e === 'cancelled()') return false;
  if (/^'.*'$/.test(e)) return e.slice(1, -1).replace(/''/g, "'");
  let m = /^inputs\.([A-Za-z0-9_-]+)$/.exec(e);
  if (m) {
    if (!(m[1]! in ctx.inputs)) throw new Error(`expression names an undeclared input: ${e}`);
    return ctx.inputs[m[1]!]!;
  }
  m = /^steps\.([A-Za-z0-9_-]+)\.outputs\.([A-Za-z0-9_-]+)$/.exec(e);
  if (m) return ctx.steps[m[1]!]?.outputs[m[2]!] ?? '';
  throw new Error(`expression not supported by this emulation: ${e}`);
}

const truthy = (v: string | boolean): boolean => v !== false && v !== '';

function splitTop(e: string, op: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quoted = false;
  let last = 0;
  for (let i = 0; i < e.length; i++) {
    const ch = e[i]!;
    if (ch === "'") quoted = !quoted;
    else if (!quoted && ch === '(') depth++;
    else if (!quoted && ch === ')') depth--;
    else if (!quoted && depth === 0 && e.startsWith(op, i)) {
      parts.push(e.slice(last, i));
      last = i + op.length;
      i += op.length - 1;
    }
  }
  parts.push(e.slice(last));
  return parts;
}

/** Replaces every `${{ expr }}` in `text`. */
export function substitute(text: string, ctx: Context): string {
  return text.replace(/\$\{\{(.*?)\}\}/g, (_, expr: string) => String(evaluate(expr, ctx)));
}

/** Whether a step runs: its `if` (bare or in ${{ }}), with success() implied unless it names a status function. */
function shouldRun(step: ActionStep, ctx: Context): boolean {
  const raw = step.if?.trim();
  if (!raw) return !ctx.failed;
  const expr = raw.replace(/^\$\{\{(.*)\}\}$/s, '$1');
  const statusAware = /\b(always|failure|cancelled|success)\(\)/.test(expr);
  return (statusAware || !ctx.failed) && truthy(evaluate(expr, ctx));
}

export interface StepRecord {
  name: string;
  status: 'success' | 'failure' | 'skipped';
  exitCode?: number | null;
  stdout?: string;
  stderr?: string;
  outputs: Record<string, string>;
}

export interface ActionRun {
  /** Whether the action (its calling step) failed. */
  failed: boolean;
  steps: StepRecord[];
  outputs: Record<string, string>;
  /** The job summary after the action. */
  summary: string;
  /** What was written to GITHUB_ENV (later steps would see it). */
  githubEnv: string;
  /** Everything the run steps printed (what the job log would show before masking). */
  log: string;
}

export type UsesHandler = (withs: Record<string, string>, ctx: { cwd: string }) => Promise<void> | void;

export interface RunActionOptions {
  inputs: Record<string, string>;
  /** The job's working folder ($GITHUB_WORKSPACE). */
  workspace: string;
  env: NodeJS.ProcessEnv;
  /** Handlers of `uses:` steps by action name without ref (actions/upload-artifact). */
  uses?: Record<string, UsesHandler>;
  runNumber?: string;
  killAfterMs?: number;
}

/** Runs the action's steps in order; see the module comment. */
export async function runAction(action: CompositeAction, opts: RunActionOptions): Promise<ActionRun> {
  if (action.runs.using !== 'composite') throw new Error(`not a composite action: ${action.runs.using}`);
  const unknown = Object.keys(opts.inputs).filter((k) => !(k in action.inputs));
  if (unknown.length > 0) throw new Error(`inputs the action does not declare: ${unknown.join(', ')}`);
  const inputs: Record<string, string> = {};
  for (const [name, spec] of Object.entries(action.inputs)) {
    const given = opts.inputs[name];
    if (spec.required && given === undefined) throw new Error(`input ${name} is required`);
    inputs[name] = given ?? String(spec.default ?? '');
  }
  const ctx: Context = { inputs, steps: {}, failed: false };
  const tmp = mkdtempSync(join(opts.workspace, '.runner-'));
  const summaryFile = join(tmp, 'step_summary.md');
  const envFile = join(tmp, 'github_env');
  writeFileSync(summaryFile, '');
  writeFileSync(envFile, '');
  const records: StepRecord[] = [];
  let log = '';
  for (const [i, step] of action.runs.steps.entries()) {
    const name = step.name ?? step.uses ?? `step ${i}`;
    if (!shouldRun(step, ctx)) {
      records.push({ name, status: 'skipped', outputs: {} });
      continue;
    }
    const cwd = resolve(opts.workspace, substitute(step['working-directory'] ?? '.', ctx));
    let record: StepRecord;
    if (step.uses) {
      const handler = opts.uses?.[step.uses.split('@')[0]!];
      const withs = Object.fromEntries(Object.entries(step.with ?? {}).map(([k, v]) => [k, substitute(String(v), ctx)]));
      if (!handler) record = { name, status: 'skipped', outputs: {} };
      else {
        try {
          await handler(withs, { cwd: opts.workspace });
          record = { name, status: 'success', outputs: {} };
        } catch (e) {
          record = { name, status: 'failure', stderr: String(e), outputs: {} };
        }
      }
    } else {
      if (step.shell !== 'bash') throw new Error(`${name}: composite run steps need shell: bash here, got ${step.shell}`);
      const script = join(tmp, `step-${i}.sh`);
      writeFileSync(script, step.run ?? '');
      const outputFile = join(tmp, `output-${i}`);
      writeFileSync(outputFile, '');
      const env: NodeJS.ProcessEnv = {
        ...opts.env,
        GITHUB_OUTPUT: outputFile,
        GITHUB_STEP_SUMMARY: summaryFile,
        GITHUB_ENV: envFile,
        GITHUB_WORKSPACE: opts.workspace,
        GITHUB_RUN_NUMBER: opts.runNumber ?? '1',
        GITHUB_ACTIONS: 'true',
        CI: 'true',
      };
      for (const [k, v] of Object.entries(step.env ?? {})) env[k] = substitute(String(v), ctx);
      const child = await runChild('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], { cwd, env, killAfterMs: opts.killAfterMs ?? 120_000 });
      log += child.stdout + child.stderr;
      record = { name, status: child.code === 0 ? 'success' : 'failure', exitCode: child.code, stdout: child.stdout, stderr: child.stderr, outputs: readOutputs(outputFile) };
    }
    if (step.id) ctx.steps[step.id] = { outputs: record.outputs };
    if (record.status === 'failure') ctx.failed = true;
    records.push(record);
  }
  const outputs = Object.fromEntries(Object.entries(action.outputs ?? {}).map(([k, v]) => [k, substitute(v.value, ctx)]));
  return { failed: ctx.failed, steps: records, outputs, summary: readFileSync(summaryFile, 'utf8'), githubEnv: readFileSync(envFile, 'utf8'), log };
}

/** name=value lines (and name<<DELIM heredocs) of a GITHUB_OUTPUT file. */
function readOutputs(file: string): Record<string, string> {
  const lines = readFileSync(file, 'utf8').split('\n');
  const out: Record<string, string> = {};
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line);
    if (heredoc) {
      const body: string[] = [];
      for (i++; i < lines.length && lines[i] !== heredoc[2]; i++) body.push(lines[i]!);
      out[heredoc[1]!] = body.join('\n');
    } else if (line.includes('=')) out[line.slice(0, line.indexOf('='))] = line.slice(line.indexOf('=') + 1);
  }
  return out;
}
