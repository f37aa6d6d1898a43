/**
 * The `wgc` command: dispatches subcommands. Commands other than run, clauses and help live
 * in their own modules, imported on demand (`./<name>.ts` exporting `<name>Command`), so a
 * build without one of them still runs the others and says "not available".
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadCatalog, CatalogError } from '../catalog/load.ts';
import type { Clause } from '../catalog/types.ts';
import { processIo, type CliIo } from '../report/io.ts';

export const EXIT = { conformant: 0, notConformant: 1, usageOrHarness: 2 } as const;

export const HELP = `wg-conformance: conformance suite for the Workspace Graph and ICP Service API (v1-beta)

usage: wg-conformance <command> [options]
       (wgc is the same command under a short name; the texts below use it)

commands:
  run             run the suites against a target (default: the embedded reference target)
  serve           start the embedded reference target (optionally with named faults, or a conformant variant: alternative, lenient)
  clauses [--json]  list the clause catalog: id, level, seed reference, statement, observation needs
  diff            compare two reports
  merge           merge shard partials into one report
  verify-bundle   check a certification bundle against its manifest (and its signer, with --public-key)
  keygen          write an Ed25519 key pair for signing certification bundles (run --certify --sign-key)
  bench           benchmark the suite against the embedded reference target
  selftest        run the suite against every named fault of the reference target (kill matrix)
  docs            regenerate the generated documentation (--check: fail when it is stale)
  init            write a starter target profile (wg-conformance.json) from flags; prints the secrets to set
  help            this text (also: wgc <command> --help)
  --version       the suite's version and the version of the API document it encodes

exit codes:
  0  conformant: no MUST clause failed and the harness did not break
  1  not conformant: a MUST clause failed
  2  usage error, or a harness error without failures (the result is inconclusive)
`;

/** Commands in their own modules: name → [module, export]. */
const EXTENSIONS: Record<string, [string, string]> = {
  diff: ['./diff.ts', 'diffCommand'],
  merge: ['./merge.ts', 'mergeCommand'],
  bench: ['./bench.ts', 'benchCommand'],
  docs: ['./docs.ts', 'docsCommand'],
  'verify-bundle': ['./verify-bundle.ts', 'verifyBundleCommand'],
  keygen: ['./keygen.ts', 'keygenCommand'],
  selftest: ['./selftest.ts', 'selfTestCommand'],
  init: ['./init.ts', 'initCommand'],
};

type Command = (argv: string[], ...rest: never[]) => Promise<number>;

/** Imports an optional command module; undefined when this build does not have it. */
async function loadCommand(file: string, exportName: string): Promise<Command | undefined> {
  try {
    const mod = (await import(file)) as Record<string, unknown>;
    return typeof mod[exportName] === 'function' ? (mod[exportName] as Command) : undefined;
  } catch (e) {
    const err = e as { code?: string; message?: string };
    // Only the command's own module missing means "not available"; a broken dependency is a bug.
    // (The module is named without its extension: `.ts` in a clone, `.js` in the compiled package.)
    const missing =
      (err.code === 'ERR_MODULE_NOT_FOUND' || /Cannot find module|Failed to load url|Does the file exist/.test(err.message ?? '')) && (err.message ?? '').includes(file.slice(2).replace(/\.ts$/, '.'));
    if (missing) return undefined;
    throw e;
  }
}

/** `wgc clauses [--json]`. */
export function clausesCommand(argv: string[], io: CliIo): number {
  if (argv.includes('--help') || argv.includes('-h')) {
    io.out(
      'usage: wgc clauses [--json]\n\nLists the clause catalog (specs/clauses.yaml): id, level, seed reference, what observing\nit needs, statement. --json prints every field of every clause.\n',
    );
    return EXIT.conformant;
  }
  const json = argv.includes('--json');
  const unknown = argv.filter((a) => a !== '--json');
  if (unknown.length > 0) {
    io.err(`wgc clauses: unknown argument ${unknown[0]}\nusage: wgc clauses [--json]\n`);
    return EXIT.usageOrHarness;
  }
  let clauses: readonly Clause[];
  try {
    clauses = loadCatalog().clauses;
  } catch (e) {
    if (!(e instanceof CatalogError)) throw e;
    io.err(`wgc clauses: ${e.message}\n`);
    return EXIT.usageOrHarness;
  }
  if (json) {
    io.out(`${JSON.stringify(clauses, null, 2)}\n`);
    return EXIT.conformant;
  }
  const needs = (c: Clause): string =>
    c.unobservable ? 'unobservable' : [c.observe.control && 'control', c.observe.ledger && 'ledger', c.observe.mutation && 'mutation'].filter(Boolean).join(',') || '-';
  const rows = clauses.map((c) => [c.id, c.level, c.ref, needs(c), c.statement]);
  const header = ['ID', 'LEVEL', 'REF', 'NEEDS', 'STATEMENT'];
  const widths = header.slice(0, 4).map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]): string => [...r.slice(0, 4).map((v, i) => v.padEnd(widths[i]!)), r[4]].join('  ');
  io.out(`${[line(header), ...rows.map(line)].join('\n')}\n${clauses.length} clauses\n`);
  return EXIT.conformant;
}

/** Entry point (bin/wgc.mjs). Returns the process exit code. */
export async function main(argv: string[], io: CliIo & { isTTY?: boolean } = { ...processIo, isTTY: process.stdout.isTTY }): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        io.out(HELP);
        return command === undefined ? EXIT.usageOrHarness : EXIT.conformant;
      case '--version':
      case '-V':
      case 'version':
        io.out(`${versionLine()}\n`);
        return EXIT.conformant;
      case 'run': {
        const { runCommand } = await import('./run.ts');
        return await runCommand(rest, process.env, io);
      }
      case 'serve': {
        const serve = await loadCommand('./serve.ts', 'serveCommand');
        if (!serve) return notAvailable(command, io);
        return await (serve as (argv: string[], env: NodeJS.ProcessEnv) => Promise<number>)(rest, process.env);
      }
      case 'clauses':
        return clausesCommand(rest, io);
      default: {
        const ext = EXTENSIONS[command];
        if (!ext) {
          io.err(`wgc: unknown command "${command}"\n\n${HELP}`);
          return EXIT.usageOrHarness;
        }
        const fn = await loadCommand(...ext);
        if (!fn) return notAvailable(command, io);
        return await (fn as (argv: string[]) => Promise<number>)(rest);
      }
    }
  } catch (e) {
    // Anything unexpected is the harness's fault, never the target's.
    io.err(`wgc ${command}: harness error: ${(e as Error)?.stack ?? String(e)}\n`);
    return EXIT.usageOrHarness;
  }
}

/**
 * `wg-conformance --version`: the suite's version (package.json) and the version of the API
 * document it encodes (`info.version` of specs/openapi.yaml), read without loading the spec.
 */
export function versionLine(): string {
  const pkg = JSON.parse(readFileSync(fileURLToPath(new URL('../../package.json', import.meta.url)), 'utf8')) as { name: string; version: string };
  const spec = readFileSync(fileURLToPath(new URL('../../specs/openapi.yaml', import.meta.url)), 'utf8');
  const info = /^info:\n(?:[ \t]+.*\n)*?[ \t]+title:[ \t]*(.+)\n(?:[ \t]+.*\n)*?[ \t]+version:[ \t]*(\S+)/m.exec(spec);
  return `${pkg.name} ${pkg.version} (API document: ${info ? `${info[1]!.trim()} ${info[2]}` : 'unknown'})`;
}

function notAvailable(command: string, io: CliIo): number {
  io.err(`wgc ${command}: not available in this build\n`);
  return EXIT.usageOrHarness;
}
