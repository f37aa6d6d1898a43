/**
 * The benchmark's figures as text: medians first, then where the time went, the raw limit,
 * per suite, and the credit plan against the ledgers with every check whose declaration is off.
 */
import type { CheckCharge } from './attribute.ts';
import { median, type BenchResult, type Iteration } from './measure.ts';

const s = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
const x = (ratio: number): string => (Number.isFinite(ratio) ? `${ratio.toFixed(2)}x` : 'n/a');

/**
 * Phases of a run, with the label of the time that ends at each; shown in the order the run
 * reached them (vitest starts before the embedded reference, after a remote target's preflight).
 */
const PHASES: [string, string][] = [
  ['commandStart', 'node start-up, tsx, CLI import'],
  ['configured', 'run.ts import, config'],
  ['vitestLaunched', 'vitest import, start (its worker starts)'],
  ['targetOpen', 'target opened (embedded reference)'],
  ['preflightDone', 'control check, preflight, round trip'],
  ['suitesLoaded', 'suite definitions'],
  ['vitestStart', 'credit plan, run preparation, gate open'],
  ['vitestDone', "the suites' checks (gate open to end)"],
  ['reported', 'report files written'],
  ['exit', 'process exit'],
];

/** Figures derived from one iteration. */
export function derived(it: Iteration) {
  const vitestMs = (it.run.phases['vitestDone'] ?? Number.NaN) - (it.run.phases['vitestStart'] ?? Number.NaN);
  const requests = it.run.report.meta.requests;
  const perRequestSuite = vitestMs / requests;
  const perRequestRaw = it.raw.durationMs / it.raw.requests;
  return {
    wallMs: it.run.wallMs,
    requests,
    reqPerSec: requests / (it.run.wallMs / 1000),
    peakRss: it.run.peakRssBytes,
    cpuMs: it.run.cpuMs,
    credits: it.run.report.meta.creditsCharged,
    vitestMs,
    rawMs: it.raw.durationMs,
    rawReqPerSec: it.raw.requests / (it.raw.durationMs / 1000),
    rawWarmMs: it.rawWarm.durationMs,
    /** Vitest phase per request over raw (fresh process) per request. */
    ratio: perRequestSuite / perRequestRaw,
    /** Vitest phase per request over raw (warm process) per request. */
    ratioWarm: perRequestSuite / (it.rawWarm.durationMs / it.rawWarm.requests),
    /** The worker's start-up and the import of every suite file (vitest's prepare + collect of the entry). */
    importMs: it.run.child.files.reduce((t, f) => t + f.prepareMs + f.collectMs, 0),
    /** Whole run per request over raw per request. */
    ratioWall: it.run.wallMs / requests / perRequestRaw,
  };
}

function row(cells: (string | number)[], widths: number[]): string {
  return cells.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]!) : String(c).padStart(widths[i]!))).join('  ');
}

/** The whole report. */
export function renderBench(r: BenchResult): string {
  const its = r.iterations;
  const d = its.map(derived);
  const m = <K extends keyof ReturnType<typeof derived>>(k: K): number => median(d.map((v) => Number(v[k])));
  const all = <K extends keyof ReturnType<typeof derived>>(k: K, f: (n: number) => string): string => d.map((v) => f(Number(v[k]))).join(', ');
  const loads = its.flatMap((i) => i.run.load);
  const out: string[] = [];
  out.push(
    `wgc bench: ${its.length} iteration${its.length === 1 ? '' : 's'}, seed ${r.seed}, ${r.concurrency} suite${r.concurrency === 1 ? '' : 's'} at a time in one vitest worker, embedded reference target`,
  );
  out.push(`machine: ${r.machine.nproc} CPUs (${r.machine.cpuModel}), ${(r.machine.memTotalBytes / 2 ** 30).toFixed(1)} GiB, node ${r.machine.node}, ${r.machine.platform}`);
  out.push(`load average (1 min): ${r.load[0].toFixed(1)} at start, ${r.load[1].toFixed(1)} at end; during the timed runs ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}`);
  out.push('');
  out.push(`full run (wgc run: vitest worker + embedded reference), median of ${its.length}`);
  const credits = d.map((v) => v.credits);
  const verdicts = [...new Set(its.map((i) => i.run.report.summary.verdict))].join(', ');
  const exits = its.map((i) => i.run.exitCode).join(', ');
  const lines: [string, string, string][] = [
    ['wall time', s(m('wallMs')), `spawn to exit; runs: ${all('wallMs', s)}`],
    ['requests sent', String(m('requests')), `API and control; runs: ${all('requests', String)}`],
    ['requests/s', m('reqPerSec').toFixed(0), `over the wall time; runs: ${all('reqPerSec', (n) => n.toFixed(0))}`],
    ['peak RSS', mib(m('peakRss')), `process tree (main + vitest worker), sampled every 50 ms; runs: ${all('peakRss', mib)}`],
    ['CPU time', s(m('cpuMs')), `user + system, all threads of the run process; runs: ${all('cpuMs', s)}`],
    [
      'credits charged',
      credits.every((c) => c === null) ? 'n/a' : String(median(credits.filter((c): c is number => c !== null))),
      `usage ledgers of the suite workspaces; runs: ${credits.join(', ')}`,
    ],
    ['verdict', verdicts, `exit codes: ${exits}`],
  ];
  for (const [k, v, note] of lines) out.push(`  ${k.padEnd(18)}${v.padStart(12)}   ${note}`.trimEnd());
  out.push('');
  out.push('where the time goes (median, from spawning the process)');
  let prev = 0;
  const reached = PHASES.map(([phase, label]) => ({ phase, label, at: median(its.map((i) => i.run.phases[phase] ?? Number.NaN)) }))
    .filter((p) => Number.isFinite(p.at))
    .sort((a, b) => a.at - b.at);
  for (const { phase, label, at } of reached) {
    out.push(`  ${label.padEnd(36)}${s(at - prev).padStart(9)}   (at ${s(at)})`);
    if (phase === 'suitesLoaded') {
      // The worker imports the suites beside the definitions (src/engine/gate.ts): when it got them, and for how long.
      const queued = median(its.map((i) => i.run.phases['workerQueued'] ?? Number.NaN));
      if (Number.isFinite(queued)) out.push(`    ${'vitest worker handed the suites'.padEnd(34)}${''.padStart(9)}   (at ${s(queued)})`);
      // The worker thread the run starts before vitest (src/engine/prewarm.ts), when vitest's pool took it.
      const adopted = its.filter((i) => i.run.phases['workerAdopted'] !== undefined).length;
      out.push(`    ${'worker started before vitest'.padEnd(34)}${''.padStart(9)}   adopted by vitest's pool in ${adopted} of ${its.length} runs`);
      out.push(`    ${'worker start, suite imports'.padEnd(34)}${s(m('importMs')).padStart(9)}   (beside the preflight, the definitions and the plan)`);
    }
    prev = at;
  }
  out.push('');
  out.push(`raw limit: the ${its[0]?.raw.requests ?? 0} recorded requests replayed back to back through src/http against a fresh reference`);
  out.push(`(its own process), ${r.concurrency} stream${r.concurrency === 1 ? '' : 's'} at a time (one per suite), no test logic, no waits, from a fresh process`);
  out.push("(its client as cold as the run's worker); and the same from the benchmark's process, warm from the recording pass");
  const same = its[0] ? (100 * its[0].raw.sameStatus) / its[0].raw.requests : 0;
  out.push(`  ${'raw wall'.padEnd(18)}${s(m('rawMs')).padStart(12)}   fresh process; ${same.toFixed(1)}% answered with the recorded status; runs: ${all('rawMs', s)}`);
  out.push(`  ${'raw requests/s'.padEnd(18)}${m('rawReqPerSec').toFixed(0).padStart(12)}`);
  out.push(`  ${'suite/raw'.padEnd(18)}${x(m('ratio')).padStart(12)}   vitest phase per request / raw per request (goal: within 2x); runs: ${all('ratio', x)}`);
  out.push(`  ${'wall/raw'.padEnd(18)}${x(m('ratioWall')).padStart(12)}   whole run per request / raw per request`);
  out.push(`  ${'raw wall, warm'.padEnd(18)}${s(m('rawWarmMs')).padStart(12)}   the benchmark's own process; runs: ${all('rawWarmMs', s)}`);
  out.push(`  ${'suite/raw, warm'.padEnd(18)}${x(m('ratioWarm')).padStart(12)}   vitest phase per request / warm raw per request; runs: ${all('ratioWarm', x)}`);
  out.push('');
  out.push(renderSuites(its));
  out.push('');
  out.push(renderCredits(r, credits));
  return `${out.join('\n')}\n`;
}

function renderSuites(its: Iteration[]): string {
  const names = [...new Set(its.flatMap((i) => i.suites.map((s) => s.suite)))];
  const w = [14, 9, 9, 8, 9, 10];
  const out = [
    'per suite (median): its session from provisioning to teardown (side by side with other suites), its requests and credits, raw replay of its requests',
    `  ${row(['suite', 'time', 'requests', 'credits', 'raw', 'suite/raw'], w)}`,
  ];
  for (const name of names) {
    const rows = its.map((i) => i.suites.find((s) => s.suite === name)).filter((v) => v !== undefined);
    const med = (f: (v: (typeof rows)[number]) => number): number => median(rows.map(f));
    const credits = rows.map((v) => v.credits).filter((c): c is number => c !== null);
    const ratio = med((v) => v.timeMs / Math.max(1, v.requests) / (v.rawMs / Math.max(1, v.rawRequests)));
    out.push(`  ${row([name, s(med((v) => v.timeMs)), med((v) => v.requests), credits.length ? median(credits) : 'n/a', s(med((v) => v.rawMs)), x(ratio)], w)}`);
  }
  return out.join('\n');
}

function renderCredits(r: BenchResult, charged: (number | null)[]): string {
  const rec = r.recording;
  const planned = rec.planned;
  const runCharged = charged.filter((c): c is number => c !== null);
  const out: string[] = [];
  const off = (c: number): string => (c > planned ? `${c - planned} under` : `${planned - c} over`);
  const verdict =
    runCharged.length === 0
      ? 'no ledger'
      : runCharged.every((c) => c === planned)
        ? `they match exactly${runCharged.length > 1 ? ` in all ${runCharged.length} runs` : ''}`
        : `they do not match: the plan is ${[...new Set(runCharged.filter((c) => c !== planned))].map(off).join(', ')} in ${runCharged.filter((c) => c !== planned).length} of ${runCharged.length} runs`;
  out.push(
    `credits: plan ${planned} (the checks' exact credits; ceiling ${rec.ceiling}) vs charged ${runCharged.length ? median(runCharged) : 'n/a'} (ledgers of the timed runs: ${charged.map((c) => c ?? 'n/a').join(', ')}): ${verdict}`,
  );
  const elsewhere = rec.chargedAll - rec.chargedSuiteWorkspaces;
  out.push(
    `per check, from the recording pass (one check at a time, ledgers read between checks): ${rec.chargedAll} charged${elsewhere !== 0 ? ` (${rec.chargedSuiteWorkspaces} in the suite workspaces, ${elsewhere} in workspaces the checks created)` : ''}`,
  );
  const varying = unstableChecks(r);
  if (varying.length > 0) out.push(`  checks whose request count differed between runs (their charge may differ too): ${varying.join('; ')}`);
  const outside = Object.entries(rec.outsideChecks).filter(([, v]) => v !== 0);
  if (outside.length > 0) out.push(`  charged outside any check (set-up, teardown): ${outside.map(([k, v]) => `${k} ${v}`).join(', ')}`);
  const over = rec.overCeiling;
  if (over.length > 0)
    out.push(
      `  ${over.length} check${over.length === 1 ? ' was' : 's were'} charged more than its ceiling (--max-credits does not bound ${over.length === 1 ? 'it' : 'them'}): ${over.map((c) => `${c.checkId} ${c.charged} > ${c.maxCredits}`).join(', ')}`,
    );
  const mism = rec.mismatches;
  if (mism.length === 0) {
    out.push(`  every check was charged exactly its declared credits (${rec.checks.length} checks)`);
    return out.join('\n');
  }
  const under = mism.filter((m) => m.charged > m.planned);
  out.push(`  ${mism.length} of ${rec.checks.length} checks were charged other than their declared credits: ${mism.length - under.length} declare more, ${under.length} less`);
  const w = [44, 8, 8, 7, 8];
  out.push(`  ${row(['check', 'planned', 'charged', 'diff', 'ceiling'], w)}`);
  // Largest differences first.
  const order = (a: CheckCharge, b: CheckCharge): number => Math.abs(b.charged - b.planned) - Math.abs(a.charged - a.planned) || a.checkId.localeCompare(b.checkId);
  for (const m of [...mism].sort(order)) {
    const note = m.chargedElsewhere ? `  (${m.chargedElsewhere} in a workspace the check created)` : '';
    out.push(`  ${row([m.checkId, m.planned, m.charged, `${m.charged - m.planned > 0 ? '+' : ''}${m.charged - m.planned}`, m.maxCredits], w)}${note}`);
  }
  return out.join('\n');
}

/** Checks that sent a different number of requests in some timed run than in the recording pass. */
function unstableChecks(r: BenchResult): string[] {
  const recorded = new Map(r.recording.checks.map((c) => [c.checkId, c.requests]));
  const seen = new Map<string, Set<number>>();
  for (const it of r.iterations) {
    for (const c of it.run.report.checks) {
      const base = recorded.get(c.checkId);
      if (base === undefined || base === c.requests) continue;
      let counts = seen.get(c.checkId);
      if (!counts) seen.set(c.checkId, (counts = new Set([base])));
      counts.add(c.requests);
    }
  }
  return [...seen].map(([id, counts]) => `${id} (${[...counts].join(', ')} requests)`);
}
