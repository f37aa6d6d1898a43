/**
 * `wgc serve [--port N] [--host H] [--control-token T] [--variant NAME] [--fault NAME]... [--without-operation NAME]... [--list-faults]`:
 * runs the embedded reference target until SIGINT or SIGTERM. Prints the API and control URLs
 * and where the control token came from; a generated token is printed (it is a local test
 * server), a token given by flag or WGC_CONTROL_TOKEN never is. `--variant alternative` runs
 * the conformant variant that makes the other choice wherever the seed leaves room (faults
 * are for the default variant only).
 */
import { FAULTS, startReference, VARIANT_NAMES, type VariantName } from '../reference/index.ts';

const USAGE = `usage: wgc serve [--port N] [--host H] [--control-token T] [--variant ${VARIANT_NAMES.join('|')}] [--fault NAME]... [--without-operation NAME]... [--list-faults]\n`;

/** Output sinks and an optional stop signal (tests use these instead of process signals). */
export interface ServeIo {
  out(text: string): void;
  err(text: string): void;
  /** Stops the server like SIGINT would. */
  signal?: AbortSignal;
}

const processIo: ServeIo = { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t) };

interface ServeArgs {
  port: number;
  host: string;
  token?: string;
  faults: string[];
  /** Catalog operations the server leaves out (a release that dropped them). */
  withoutOperations: string[];
  variant?: VariantName;
  listFaults: boolean;
  help: boolean;
}

function parseArgs(argv: string[]): ServeArgs | string {
  const args: ServeArgs = { port: 0, host: '127.0.0.1', faults: [], withoutOperations: [], listFaults: false, help: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const eq = a.indexOf('=');
    const name = a.startsWith('--') && eq > 0 ? a.slice(0, eq) : a;
    const value = (): string | undefined => (eq > 0 && a.startsWith('--') ? a.slice(eq + 1) : argv[++i]);
    if (name === '--list-faults') args.listFaults = true;
    else if (name === '--help' || name === '-h') args.help = true;
    else if (name === '--port') {
      const v = value();
      if (v === undefined || !/^\d{1,5}$/.test(v) || Number(v) > 65535) return `--port must be an integer from 0 to 65535, got ${JSON.stringify(v ?? '')}`;
      args.port = Number(v);
    } else if (name === '--host') {
      const v = value();
      if (!v) return '--host needs a value';
      args.host = v;
    } else if (name === '--control-token') {
      const v = value();
      if (!v) return '--control-token needs a non-empty value';
      args.token = v;
    } else if (name === '--variant') {
      const v = value();
      if (!v || !(VARIANT_NAMES as readonly string[]).includes(v)) return `--variant must be one of ${VARIANT_NAMES.join(', ')}, got ${JSON.stringify(v ?? '')}`;
      args.variant = v as VariantName;
    } else if (name === '--without-operation') {
      const v = value();
      if (!v) return '--without-operation needs a catalog operation name (e.g. graph.context_refresh)';
      args.withoutOperations.push(v);
    } else if (name === '--fault') {
      const v = value();
      if (!v) return '--fault needs a fault name (see --list-faults)';
      args.faults.push(v);
    } else return `unknown option ${a}`;
  }
  return args;
}

function listFaults(io: ServeIo): void {
  const width = Math.max(...FAULTS.map((f) => f.name.length));
  for (const f of FAULTS) io.out(`${f.name.padEnd(width)}  ${f.clauses.join(',')}\n${' '.repeat(width + 2)}${f.description}\n`);
  io.out(`${FAULTS.length} faults\n`);
}

/** Runs `wgc serve`; resolves with the exit code once stopped (0), or 2 on bad input. */
export async function serveCommand(argv: string[], env: NodeJS.ProcessEnv, io: ServeIo = processIo): Promise<number> {
  const args = parseArgs(argv);
  if (typeof args === 'string') {
    io.err(`wgc serve: ${args}\n${USAGE}`);
    return 2;
  }
  if (args.help) {
    io.out(USAGE);
    return 0;
  }
  if (args.listFaults) {
    listFaults(io);
    return 0;
  }
  const envToken = env.WGC_CONTROL_TOKEN;
  const token = args.token ?? (envToken ? envToken : undefined);
  const tokenSource = args.token ? 'from --control-token (not shown)' : envToken ? 'from WGC_CONTROL_TOKEN (not shown)' : undefined;
  let ref;
  try {
    ref = await startReference({
      host: args.host,
      port: args.port,
      ...(token ? { controlToken: token } : {}),
      faults: args.faults,
      withoutOperations: args.withoutOperations,
      ...(args.variant ? { variant: args.variant } : {}),
    });
  } catch (e) {
    io.err(`wgc serve: ${e instanceof Error ? e.message : String(e)}\n`);
    return 2;
  }
  io.out(
    [
      'wgc serve: reference target running',
      `  API:           ${ref.baseUrl}/api/v1`,
      `  control:       ${ref.controlUrl}`,
      `  control token: ${tokenSource ?? `generated: ${ref.controlToken}`}`,
      ...(ref.variant !== 'default' ? [`  variant:       ${ref.variant}`] : []),
      `  faults:        ${ref.faults.length > 0 ? ref.faults.join(', ') : 'none'}`,
      'Stop with Ctrl-C.',
      '',
    ].join('\n'),
  );
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      io.signal?.removeEventListener('abort', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    if (io.signal?.aborted) stop();
    else io.signal?.addEventListener('abort', stop);
  });
  await ref.close();
  io.out('wgc serve: stopped\n');
  return 0;
}
