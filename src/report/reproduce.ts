/**
 * "Reproduce with": a failure's reproduction as a runnable POSIX shell script that replays
 * every request of the failing check's scenario in order (the suite's set-up through the
 * test-control protocol, the check's records, its control actions such as revoke or pause),
 * carrying ids, cursors and minted key secrets from each answer to the requests that reuse
 * them; and the `wgc run` command that replays the check exactly.
 *
 * Secrets are never in the script: every one is an environment variable (WGC_CONTROL_TOKEN,
 * WGC_KEY_<LABEL>), read from the environment or from the answer that minted it. Text that came
 * from the target only appears single-quoted or in comments stripped of line breaks.
 */
import type { CheckSummary, ReportScenario, ReportStep, RunMeta } from './model.ts';
import { secretEnvVar } from '../http/curl.ts';
import { REDACTION_MARKER_RE } from '../http/redact.ts';
import { scenarioSecretLabels } from './scenario.ts';

/** The folder of the reproduction scripts in a report's output folder. */
export const REPRODUCE_DIR = 'reproduce';

/** The file name of a check's reproduction script: "auth/revoked-key" → "auth--revoked-key.sh". */
export function reproductionFile(checkId: string): string {
  return `${checkId.replace(/[^A-Za-z0-9_.-]+/g, '--')}.sh`;
}

/** Headers curl sets itself or that would mislead when replayed. */
const SKIPPED_HEADERS = new Set(['content-length', 'host', 'connection', 'transfer-encoding']);

/** The environment variable holding a redacted secret. */
export function secretVariable(label: string): string {
  return label === 'control_token' ? 'WGC_CONTROL_TOKEN' : secretEnvVar(label);
}

/** Untrusted text fit for a shell comment: one line, no control characters. */
export function commentText(text: string, max = 200): string {
  const one = text.replace(/[\u0000-\u001F\u007F-\u009F\u2028\u2029]+/g, ' ').trim();
  return one.length <= max ? one : `${one.slice(0, max - 1)}…`;
}

function singleQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** A literal a script writes as a variable: the base URL prefix, a carried id (whole tokens only), a secret marker. */
export interface ShellVar {
  literal: string;
  name: string;
  /** Only at the start of the text (base URLs). */
  prefixOnly?: boolean;
  /** Only where it is not part of a longer token (ids). */
  token?: boolean;
}

function find(text: string, v: ShellVar): number {
  for (let from = 0; ;) {
    const at = text.indexOf(v.literal, from);
    if (at < 0 || !v.token) return at;
    if (!/[A-Za-z0-9_-]/.test(text[at - 1] ?? '') && !/[A-Za-z0-9_-]/.test(text[at + v.literal.length] ?? '')) return at;
    from = at + 1;
  }
}

/**
 * Quotes text for the shell, turning the given literal pieces into variable references
 * ("${NAME}", expanded) and quoting everything else literally.
 */
export function quoteWith(text: string, vars: readonly ShellVar[]): string {
  const parts: string[] = [];
  let rest = text;
  const lit = (s: string) => {
    if (s) parts.push(singleQuote(s));
  };
  const prefix = vars.find((v) => v.prefixOnly && rest.startsWith(v.literal));
  if (prefix) {
    parts.push(`"\${${prefix.name}}"`);
    rest = rest.slice(prefix.literal.length);
  }
  const inner = vars.filter((v) => !v.prefixOnly && v.literal.length > 0);
  for (;;) {
    let best: { at: number; v: (typeof inner)[number] } | undefined;
    for (const v of inner) {
      const at = find(rest, v);
      if (at >= 0 && (!best || at < best.at || (at === best.at && v.literal.length > best.v.literal.length))) best = { at, v };
    }
    if (!best) break;
    lit(rest.slice(0, best.at));
    parts.push(`"\${${best.v.name}}"`);
    rest = rest.slice(best.at + best.v.literal.length);
  }
  lit(rest);
  return parts.length ? parts.join('') : "''";
}

/** Shell-quoted argument: `--flag value` pairs of a rerun command. */
function arg(value: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(value) ? value : singleQuote(value);
}

/**
 * `wgc run --seed N --check ID...` with the run's target: replays the checks exactly (same
 * seed, same generated values, same requests) against the same target.
 */
export function rerunCommand(meta: RunMeta, checkIds: readonly string[] = []): string {
  const parts = ['wgc run'];
  const cfg = meta.config as Record<string, unknown>;
  if (typeof cfg.profile === 'string') parts.push(`--target ${arg(cfg.profile)}`);
  else if (/^https?:\/\//.test(meta.target.baseUrl)) {
    parts.push(`--base-url ${arg(meta.target.baseUrl)}`);
    if (typeof cfg.controlUrl === 'string') parts.push(`--control-url ${arg(cfg.controlUrl)}`);
  }
  parts.push(`--seed ${meta.seed}`);
  if (typeof cfg.runs === 'number' && cfg.runs !== 25) parts.push(`--runs ${cfg.runs}`);
  for (const id of checkIds) parts.push(`--check ${arg(id)}`);
  return parts.join(' ');
}

/** What the script needs from the environment: the base URLs and the secrets no answer mints. */
function requiredSecrets(scenario: ReportScenario): string[] {
  const minted = new Set(scenario.steps.flatMap((s) => s.captures.filter((c) => c.name.startsWith('secret:')).map((c) => c.name.slice(7))));
  return scenarioSecretLabels(scenario)
    .filter((l) => !minted.has(l))
    .map(secretVariable);
}

function stepLine(s: ReportStep, n: number, vars: readonly ShellVar[]): string[] {
  const path = s.url.startsWith(s.base) ? s.url.slice(s.base.length) : s.url;
  const recorded = s.status !== undefined ? String(s.status) : commentText(s.error ?? 'no answer', 80);
  const args = [`-X ${s.method}`, quoteWith(s.url, vars)];
  for (const [name, value] of Object.entries(s.headers)) {
    if (SKIPPED_HEADERS.has(name)) continue;
    args.push(`-H ${quoteWith(`${name}: ${value}`, vars)}`);
  }
  if (s.body !== undefined) args.push(`--data-binary ${quoteWith(s.body, vars)}`);
  const label = `${n} ${s.phase} ${s.via === 'control' ? 'control' : 'API'} ${s.method} ${commentText(path, 120)}`;
  const lines = [`# ${label}${s.finding ? '   <- the failure shows here' : ''}`, `step ${singleQuote(label)} ${singleQuote(recorded)} \\\n  ${args.join(' \\\n  ')}`];
  if (s.finding) lines.push('show');
  for (const c of s.captures) {
    const name = c.name.startsWith('secret:') ? secretVariable(c.name.slice(7)) : c.name;
    lines.push(`${name}=$(jq -r ${singleQuote(c.path)} "$body")`);
  }
  return lines;
}

/**
 * The reproduction script of one failing check: a header naming the failure, the variables it
 * needs, then every kept request of the scenario as a `step` (status printed beside the
 * recorded one, the body of each request a finding shows printed in full).
 */
export function reproductionScript(check: CheckSummary, meta: RunMeta, failures: readonly { clause: string; message: string }[]): string | undefined {
  const sc = check.scenario;
  if (!sc || sc.steps.length === 0) return undefined;
  const apiBase = sc.steps.find((s) => s.via === 'api')?.base;
  const controlBase = sc.steps.find((s) => s.via === 'control')?.base;
  const vars: ShellVar[] = [];
  if (controlBase) vars.push({ literal: controlBase, name: 'WGC_CONTROL_URL', prefixOnly: true });
  if (apiBase) vars.push({ literal: apiBase, name: 'WGC_BASE_URL', prefixOnly: true });
  for (const s of sc.steps) {
    for (const c of s.captures) if (!c.name.startsWith('secret:')) vars.push({ literal: c.value, name: c.name, token: true });
  }
  // Redaction markers become their variables wherever they appear.
  const labels = new Set<string>();
  for (const s of sc.steps) for (const m of [s.url, ...Object.values(s.headers), s.body ?? ''].join('\n').matchAll(REDACTION_MARKER_RE)) labels.add(m[1]!);
  for (const l of labels) vars.push({ literal: `[REDACTED:${l}]`, name: secretVariable(l) });

  const counts = { setup: 0, check: 0, cleanup: 0 };
  for (const s of sc.steps) counts[s.phase]++;
  const needed = requiredSecrets(sc);
  const head = [
    '#!/bin/sh',
    `# Reproduction of ${failures
      .map((f) => f.clause)
      .filter((c, i, a) => a.indexOf(c) === i)
      .join(', ')} found by check ${check.checkId} (wg-conformance ${meta.suite.version}, seed ${meta.seed}).`,
    ...failures.slice(0, 5).map((f) => `#   ${f.clause}: ${commentText(f.message)}`),
    `# Replays the ${sc.steps.length} requests of the scenario in order: ${counts.setup} of the suite's set-up, ${counts.check} of the check${counts.cleanup ? `, ${counts.cleanup} of its clean-up` : ''}.`,
    ...(sc.omittedInside > 0 ? [`# ${sc.omittedInside} requests from the middle of the check are left out (the check is long); the exact replay below sends them all.`] : []),
    '# Ids, cursors and minted secrets are carried from each answer to the requests that reuse them.',
    `# Exact replay with the suite: ${rerunCommand(meta, [check.checkId])}`,
    '# Needs curl and jq. Set in the environment:',
    ...(apiBase ? [`#   WGC_BASE_URL      the target (default: the run's, ${commentText(apiBase, 100)})`] : []),
    ...(controlBase ? [`#   WGC_CONTROL_URL   its test-control protocol (default: the run's, ${commentText(controlBase, 100)})`] : []),
    ...needed.map((v) => `#   ${v}${v === 'WGC_CONTROL_TOKEN' ? '   the control protocol token' : '   the secret of the key of that name'}`),
    'set -eu',
    ...(apiBase ? [`: "\${WGC_BASE_URL:=${apiBase.replace(/["$`\\]/g, '')}}"`] : []),
    ...(controlBase ? [`: "\${WGC_CONTROL_URL:=${controlBase.replace(/["$`\\]/g, '')}}"`] : []),
    ...needed.map((v) => `: "\${${v}:?set ${v}}"`),
    'body=$(mktemp)',
    `trap 'rm -f "$body"' EXIT`,
    `step() { label=$1; recorded=$2; shift 2; code=$(curl -sS -o "$body" -w '%{http_code}' "$@") || code=000; printf '%-70s -> %s (recorded %s)\\n' "$label" "$code" "$recorded"; }`,
    `show() { cat "$body"; printf '\\n'; }`,
    '',
  ];
  const body = sc.steps.flatMap((s, i) => [...stepLine(s, i + 1, vars), '']);
  return [...head, ...body].join('\n');
}
