/**
 * Allure 2 results written from the run result (`wgc run --allure-results DIR`, also
 * WGC_ALLURE_RESULTS or the profile's allureResults): one test per executed check, so a
 * merged sharded run writes the same results as an unsharded one. Render with
 * `allure generate DIR`.
 *
 * - status: a target failure is `failed` (Allure's product defect), a harness error `broken`
 *   (test defect), not observable and disabled `skipped`, passed `passed`;
 * - labels as the vitest glue gives them (reporters/allure-labels.ts): clause, area, level,
 *   check, epic (suite), feature (area), story (clause), tag (level, and "warning" for a failed
 *   SHOULD only), severity (critical when a MUST clause is involved);
 * - links: each clause's seed section (the report's seed links: the bundled seed document
 *   unless --seed-url says where it is published);
 * - attachments: each finding's request and response (redacted, as in report.json) and the
 *   failing check's reproduction script.
 */
import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CheckSummary, ReportEvidence, ReportExchange, RunResult } from '../src/report/model.ts';
import { prettyBody } from '../src/report/html-evidence.ts';
import { evidenceLine } from '../src/report/evidence.ts';
import { reproductionScript, rerunCommand } from '../src/report/reproduce.ts';
import type { AllureLabel, AllureLink } from './allure-labels.ts';

/** Allure's statuses for wgc's outcomes. */
export const ALLURE_STATUS = { passed: 'passed', failed: 'failed', harnessError: 'broken', notObservable: 'skipped', disabled: 'skipped' } as const;

interface Attachment {
  name: string;
  source: string;
  type: string;
}

function uuidOf(text: string): string {
  const h = createHash('sha256').update(text).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

function exchangeText(ex: ReportExchange): { request: string; response: string } {
  const headers = (h: Record<string, string>) =>
    Object.entries(h)
      .map(([k, v]) => `${k}: ${v}`)
      .join('\n');
  const request = `${ex.request.method} ${ex.request.url}\n${headers(ex.request.headers)}${ex.request.body !== undefined ? `\n\n${prettyBody(ex.request.body)}` : ''}\n\n# Reproduce with:\n${ex.curl}\n`;
  const response = ex.response
    ? `${ex.response.status}\n${headers(ex.response.headers)}\n\n${prettyBody(ex.response.text)}\n`
    : `no response: ${ex.error ? `${ex.error.kind}: ${ex.error.message}` : 'not sent'}\n`;
  return { request, response };
}

/** Writes one Allure result per executed check (and its attachments) into `dir`; returns the number of results. */
export async function writeAllureResults(r: RunResult, dir: string): Promise<number> {
  await mkdir(dir, { recursive: true });
  const clauses = new Map(r.clauses.map((c) => [c.id, c]));
  const started = Date.parse(r.meta.startedAt) || 0;
  let clock = started;
  const files: [string, string][] = [];
  const results = r.checks.map((k: CheckSummary) => {
    const uuid = uuidOf(`${r.meta.startedAt}\u0000${k.checkId}`);
    const ids = Object.keys(k.clauses);
    const evidence: ReportEvidence[] = ids.flatMap((id) => (clauses.get(id)?.evidence ?? []).filter((e) => e.checkId === k.checkId));
    const labels: AllureLabel[] = [
      { name: 'check', value: k.checkId },
      { name: 'epic', value: k.suite },
      { name: 'suite', value: k.suite },
      { name: 'framework', value: 'wg-conformance' },
    ];
    const links: AllureLink[] = [];
    let must = false;
    for (const id of ids) {
      const c = clauses.get(id);
      labels.push({ name: 'clause', value: id }, { name: 'story', value: id });
      if (!c) continue;
      labels.push({ name: 'area', value: c.area }, { name: 'feature', value: c.area }, { name: 'level', value: c.level }, { name: 'tag', value: c.level });
      if (c.level === 'MUST') must = true;
      if (c.seedLink) links.push({ name: `${id}: seed ${c.ref}`, url: c.seedLink, type: 'seed' });
    }
    const failedLevels = ids.filter((id) => k.clauses[id] === 'failed').map((id) => clauses.get(id)?.level);
    if (k.outcome === 'failed' && !failedLevels.includes('MUST')) labels.push({ name: 'tag', value: 'warning' });
    labels.push({ name: 'severity', value: must ? 'critical' : 'normal' });
    const unique = labels.filter((l, i) => labels.findIndex((m) => m.name === l.name && m.value === l.value) === i);

    const attachments: Attachment[] = [];
    const attach = (name: string, text: string, type: string, ext: string) => {
      const source = `${uuidOf(`${uuid}\u0000${attachments.length}`)}-attachment.${ext}`;
      files.push([source, text]);
      attachments.push({ name, source, type });
    };
    evidence.forEach((e, i) => {
      const n = evidence.length > 1 ? ` ${i + 1}` : '';
      for (const [j, ex] of [...(e.context ?? []), ...(e.exchange ? [e.exchange] : [])].entries()) {
        const t = exchangeText(ex);
        const role = e.exchange && ex === e.exchange ? '' : ` (context ${j + 1})`;
        attach(`${e.clause}${n} request${role}: ${ex.request.method} ${ex.request.url}`, t.request, 'text/plain', 'txt');
        attach(`${e.clause}${n} response${role}`, t.response, ex.response?.isJson ? 'application/json' : 'text/plain', ex.response?.isJson ? 'json' : 'txt');
      }
    });
    const script = reproductionScript(k, r.meta, evidence);
    if (script) attach('reproduction script (sh)', script, 'text/x-shellscript', 'sh');

    const status = ALLURE_STATUS[k.outcome];
    const message = k.outcome === 'failed' ? evidence.map((e) => `${e.clause} (${clauses.get(e.clause)?.level ?? '?'}): ${evidenceLine(e)}`).join('\n') || 'failed' : (k.reason ?? '');
    const trace = evidence
      .map((e) => [`${e.clause}: ${e.message}`, e.expected !== undefined ? `expected: ${e.expected}` : '', e.received !== undefined ? `received: ${e.received}` : ''].filter(Boolean).join('\n'))
      .concat(k.outcome === 'failed' ? [`replay: ${rerunCommand(r.meta, [k.checkId])}`] : [])
      .join('\n\n');
    const start = clock;
    clock += Math.max(0, Math.round(k.durationMs));
    return {
      uuid,
      historyId: createHash('md5').update(k.checkId).digest('hex'),
      testCaseId: createHash('md5').update(`wgc:${k.checkId}`).digest('hex'),
      fullName: `${k.suite}: ${k.checkId}`,
      name: `${k.checkId} ${k.title} [${ids.join(', ')}]`,
      description: k.title,
      status,
      statusDetails: { message, trace, known: false, muted: false, flaky: false },
      stage: 'finished',
      start,
      stop: clock,
      labels: unique,
      links,
      parameters: [{ name: 'seed', value: String(k.seed) }],
      attachments,
      steps: [],
    };
  });
  for (const [name, text] of files) await writeFile(join(dir, name), text, 'utf8');
  for (const res of results) await writeFile(join(dir, `${res.uuid}-result.json`), JSON.stringify(res, null, 2), 'utf8');
  await writeFile(
    join(dir, 'environment.properties'),
    [`target=${r.meta.target.baseUrl}`, `seed=${r.meta.seed}`, `suite=${r.meta.suite.name} ${r.meta.suite.version}`, `verdict=${r.summary.verdict}`, `rerun=${rerunCommand(r.meta)}`]
      .map((l) => l.replace(/[\r\n]+/g, ' '))
      .join('\n') + '\n',
    'utf8',
  );
  return results.length;
}
