/**
 * `wgc selftest [--family NAME]... [--fault NAME]... [--suite NAME]... [--out DIR] [--concurrency N] [--runs N] [--seed N]`: the
 * fault self-test. Runs every suite against the conformant reference and against the
 * reference with each named fault, writes kill-matrix.json and kill-matrix.md, and prints the
 * kill rate, the time and the escapes. Exit code: 0 when the conformant run is clean and every
 * fault is caught, 1 otherwise, 2 on a usage error or when the self-test could not run.
 */
import { CatalogError } from '../catalog/load.ts';
import { SuiteLoadError } from '../engine/discover.ts';
import { processIo, type CliIo } from '../report/io.ts';
import { runSelfTest, SelfTestSetupError, SELFTEST_NUM_RUNS, SELFTEST_SEED, WORKER_MODES, type SelfTestOptions, type WorkerMode } from '../selftest/index.ts';
import { FAMILIES, type Family } from '../selftest/families.ts';
import { renderSelfTestSummary, seconds } from '../selftest/render.ts';
import { writeKillMatrix } from '../selftest/write.ts';

export const SELFTEST_USAGE = `usage: wgc selftest [--family NAME]... [--fault NAME]... [--suite NAME]... [--out DIR] [--concurrency N] [--runs N] [--seed N] [--mode process|thread|inline]

Runs every suite against the embedded reference target, conformant and with each fault of the
families chosen: the hand-written faults (named: wgc serve --list-faults) and the faults
generated from the API document (bounds: every length, count and number bound of every
definition write moved by one, each way), and writes kill-matrix.json and kill-matrix.md into --out.

  --family NAME      run only this family of faults (repeatable): ${FAMILIES.join(', ')}; default: all
  --fault NAME       run only this fault (repeatable); default: every fault of the families
  --suite NAME       run only this suite (repeatable), every other switched off, against the
                     faults whose declared clauses its checks all name (the areas it covers):
                     what those suites catch alone; default: every suite
  --out DIR          where to write the kill matrix (default reports/selftest)
  --concurrency N    worker processes running faults side by side (default: cores + 1)
  --runs N           generated cases per property (default ${SELFTEST_NUM_RUNS})
  --seed N           seed of every property (default ${SELFTEST_SEED}, fixed for reproducibility)
  --mode M           workers are child processes (default), worker threads, or inline (this process, one at a time)

Exit codes: 0 conformant run clean and every fault caught · 1 otherwise · 2 usage error or the self-test could not run.
`;

interface Parsed {
  faults: string[];
  suites: string[];
  families: Family[];
  out: string;
  concurrency?: number;
  numRuns?: number;
  seed?: number;
  mode?: WorkerMode;
}

/** Parses the arguments; a string is a usage error. */
export function parseSelfTestArgs(argv: readonly string[]): Parsed | string {
  const p: Parsed = { faults: [], suites: [], families: [], out: 'reports/selftest' };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const eq = a.indexOf('=');
    const flag = a.startsWith('--') && eq > 0 ? a.slice(0, eq) : a;
    const value = (): string | undefined => (flag !== a ? a.slice(eq + 1) : argv[++i]);
    const int = (min: number, max = Number.MAX_SAFE_INTEGER): number | string => {
      const v = value();
      if (v === undefined || !/^\d+$/.test(v) || Number(v) < min || Number(v) > max) return `${flag} needs an integer from ${min} to ${max}, got ${v === undefined ? 'nothing' : JSON.stringify(v)}`;
      return Number(v);
    };
    let n: number | string;
    switch (flag) {
      case '--fault': {
        const v = value();
        if (!v) return '--fault needs a fault name';
        p.faults.push(v);
        break;
      }
      case '--suite': {
        const v = value();
        if (!v) return '--suite needs a suite name';
        p.suites.push(v);
        break;
      }
      case '--family': {
        const v = value();
        if (!v || !(FAMILIES as readonly string[]).includes(v)) return `--family must be one of ${FAMILIES.join(', ')}`;
        p.families.push(v as Family);
        break;
      }
      case '--out': {
        const v = value();
        if (!v) return '--out needs a folder';
        p.out = v;
        break;
      }
      case '--concurrency':
        if (typeof (n = int(1, 64)) === 'string') return n;
        p.concurrency = n;
        break;
      case '--runs':
        if (typeof (n = int(1, 10_000)) === 'string') return n;
        p.numRuns = n;
        break;
      case '--seed':
        if (typeof (n = int(0, 0xffffffff)) === 'string') return n;
        p.seed = n;
        break;
      case '--mode': {
        const v = value();
        if (!v || !(WORKER_MODES as readonly string[]).includes(v)) return `--mode must be one of ${WORKER_MODES.join(', ')}`;
        p.mode = v as WorkerMode;
        break;
      }
      default:
        return `unknown argument ${a}`;
    }
  }
  return p;
}

/** Runs `wgc selftest`; returns the exit code. */
export async function selfTestCommand(argv: string[], io: CliIo = processIo): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    io.out(SELFTEST_USAGE);
    return 0;
  }
  const parsed = parseSelfTestArgs(argv);
  if (typeof parsed === 'string') {
    io.err(`wgc selftest: ${parsed}\n${SELFTEST_USAGE}`);
    return 2;
  }
  const opts: SelfTestOptions = {
    faults: parsed.faults,
    ...(parsed.families.length > 0 ? { families: parsed.families } : {}),
    ...(parsed.suites.length > 0 ? { onlySuites: parsed.suites } : {}),
    onProgress: (p) => io.err(`[${p.done}/${p.total}] ${p.fault ?? 'conformant reference'}: ${p.status} (${seconds(p.durationMs)})\n`),
  };
  if (parsed.concurrency !== undefined) opts.concurrency = parsed.concurrency;
  if (parsed.numRuns !== undefined) opts.numRuns = parsed.numRuns;
  if (parsed.seed !== undefined) opts.seed = parsed.seed;
  if (parsed.mode !== undefined) opts.mode = parsed.mode;
  let matrix;
  try {
    matrix = await runSelfTest(opts);
  } catch (e) {
    const usage = e instanceof Error && (/^unknown (fault|suite)/.test(e.message) || /not in the families selected$/.test(e.message));
    if (usage || e instanceof SelfTestSetupError || e instanceof CatalogError || e instanceof SuiteLoadError) {
      io.err(`wgc selftest: ${(e as Error).message}\n`);
      return 2;
    }
    throw e;
  }
  const files = await writeKillMatrix(matrix, parsed.out);
  io.out(renderSelfTestSummary(matrix, files));
  return matrix.ok ? 0 : 1;
}
