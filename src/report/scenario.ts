/**
 * A failing check's scenario as the report keeps it: every request in order (the suite's
 * set-up through the test-control protocol, the check's own API and control requests), each
 * with what a replay must carry forward from its answer (ids, cursors, minted key secrets) to
 * the requests that reuse it. Response bodies are not kept: only the status and those values.
 * `reproduce.ts` renders it as a runnable shell script.
 */
import type { ScenarioStep } from '../engine/check.ts';
import type { Evidence } from '../engine/finding.ts';
import type { ReportScenario, ReportStep } from './model.ts';
import { REDACTION_MARKER_RE } from '../http/redact.ts';

/** Steps kept per scenario; longer ones keep their set-up and the last steps of the check. */
export const MAX_SCENARIO_STEPS = 400;

/** JSON keys whose string values later requests may reuse: ids and cursors. */
const CARRIED_KEY = /(^id$|Id$|_id$|^cursor$|_cursor$|Cursor$)/;
const MARKER = /^\[REDACTED:([A-Za-z0-9_-]+)\]$/;

/** A jq path for a JSON location, e.g. `.items[0].id`, `.["odd key"]`. */
export function jqPath(path: readonly (string | number)[]): string {
  if (path.length === 0) return '.';
  return path
    .map((p) => (typeof p === 'number' ? `[${p}]` : /^[A-Za-z_][A-Za-z0-9_]*$/.test(p) ? `.${p}` : `[${JSON.stringify(p)}]`))
    .join('')
    .replace(/^\[/, '.[');
}

interface Leaf {
  path: (string | number)[];
  key: string;
  value: string;
}

function leaves(value: unknown, path: (string | number)[] = [], key = '', out: Leaf[] = []): Leaf[] {
  if (out.length > 2000) return out;
  if (typeof value === 'string') out.push({ path, key, value });
  else if (Array.isArray(value)) value.forEach((v, i) => leaves(v, [...path, i], key, out));
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) leaves(v, [...path, k], k, out);
  return out;
}

/** The text of a request a later value may appear in. */
function requestText(s: ScenarioStep): string {
  const r = s.exchange.request;
  return [r.url, ...Object.values(r.headers), r.body ?? ''].join('\n');
}

/** True when `value` occurs in `text` as a whole token (not inside a longer id). */
function occursIn(text: string, value: string): boolean {
  let from = 0;
  for (;;) {
    const i = text.indexOf(value, from);
    if (i < 0) return false;
    const before = text[i - 1] ?? '';
    const after = text[i + value.length] ?? '';
    if (!/[A-Za-z0-9_-]/.test(before) && !/[A-Za-z0-9_-]/.test(after)) return true;
    from = i + 1;
  }
}

function varName(key: string, n: number): string {
  const base =
    key
      .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
      .replace(/[^A-Za-z0-9]+/g, '_')
      .toUpperCase()
      .replace(/^_+|_+$/g, '') || 'VALUE';
  return `${/^[0-9]/.test(base) ? `V_${base}` : base}_${n}`;
}

/**
 * Chooses the steps to keep (up to the last request a finding shows, from the one a finding
 * starts at where it names one, set-up first, at most MAX_SCENARIO_STEPS) and finds, in each answer, the values later requests reuse.
 */
export function reportScenario(steps: readonly ScenarioStep[], findings: readonly Evidence[]): ReportScenario {
  const shown = new Set(findings.flatMap((f) => [f.exchange?.id, ...(f.context ?? []).map((c) => c.id)]).filter((id): id is string => id !== undefined));
  let end = steps.length;
  const lastShown = steps.findLastIndex((s) => shown.has(s.exchange.id));
  if (lastShown >= 0) end = lastShown + 1;
  else while (end > 0 && steps[end - 1]!.phase === 'cleanup') end--;
  // A finding whose run needs nothing sent before it (Evidence.from) is reproduced from there, after the set-up.
  const from = findings.map((f) => f.from).find((id) => id !== undefined);
  const start = from === undefined ? -1 : steps.findIndex((s) => s.exchange.id === from);
  let kept = start > 0 && start < end ? [...steps.slice(0, start).filter((s) => s.phase === 'setup'), ...steps.slice(start, end)] : steps.slice(0, end);
  let omitted = steps.length - kept.length;
  let omittedInside = 0;
  if (kept.length > MAX_SCENARIO_STEPS) {
    const setup = kept.filter((s) => s.phase === 'setup');
    const rest = kept.filter((s) => s.phase !== 'setup');
    const room = Math.max(1, MAX_SCENARIO_STEPS - setup.length);
    omittedInside = rest.length - room;
    kept = [...setup, ...rest.slice(-room)];
  }
  omitted += omittedInside;

  const texts = kept.map(requestText);
  const out: ReportStep[] = [];
  let counter = 0;
  const taken = new Set<string>();
  kept.forEach((s, i) => {
    const ex = s.exchange;
    const step: ReportStep = {
      id: ex.id,
      via: s.via,
      phase: s.phase,
      base: s.base,
      method: ex.request.method,
      url: ex.request.url,
      headers: { ...ex.request.headers },
      captures: [],
      finding: shown.has(ex.id),
    };
    if (ex.request.body !== undefined) step.body = ex.request.body;
    if (ex.response) step.status = ex.response.status;
    if (ex.error) step.error = `${ex.error.kind}: ${ex.error.message}`;
    let json: unknown;
    if (ex.response?.isJson && !ex.response.truncated) {
      try {
        json = JSON.parse(ex.response.text);
      } catch {
        json = undefined;
      }
    }
    for (const leaf of json === undefined ? [] : leaves(json)) {
      const marker = MARKER.exec(leaf.value);
      if (!marker && (!CARRIED_KEY.test(leaf.key) || leaf.value.length < 4)) continue;
      // A value is carried from the first answer that holds it, to the requests after it.
      if (taken.has(leaf.value)) continue;
      if (!texts.slice(i + 1).some((t) => occursIn(t, leaf.value))) continue;
      taken.add(leaf.value);
      // A minted secret is named after its redaction label ("secret:<label>"); its variable is chosen when rendering.
      step.captures.push({ name: marker ? `secret:${marker[1]}` : varName(leaf.key, ++counter), path: jqPath(leaf.path), value: leaf.value });
    }
    out.push(step);
  });
  return { steps: out, omitted, omittedInside };
}

/** Redaction labels the requests of a scenario use (each an environment variable of the script). */
export function scenarioSecretLabels(scenario: ReportScenario): string[] {
  const labels = new Set<string>();
  for (const s of scenario.steps) {
    for (const m of [s.url, ...Object.values(s.headers), s.body ?? ''].join('\n').matchAll(REDACTION_MARKER_RE)) labels.add(m[1]!);
  }
  return [...labels];
}
