/**
 * The embedded reference target: a conforming implementation of the whole service under
 * /api/v1 plus the test-control protocol at /__control/v1 on the same port, in memory, with
 * optional named faults (faults.ts) and a choice of variant (choices.ts): `default`, or
 * `alternative`, which makes the other conformant choice wherever the seed leaves room.
 * `wgc run` uses it by default; the project's tests and `wgc serve` start it through
 * {@link startReference}.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { VariantName } from './choices.ts';
import { resolveVariant } from './variants.ts';
import { Executor } from './executor.ts';
import { resolveFaults } from './faults.ts';
import { OPERATIONS } from './operations.ts';
import { Server } from './server.ts';
import { randomBase62, Store } from './store.ts';

export interface ReferenceOptions {
  /** Interface to listen on; default 127.0.0.1. */
  host?: string;
  /** Port; default 0 (an ephemeral port). */
  port?: number;
  /** Bearer token of the control protocol; default: random. */
  controlToken?: string;
  /** Catalog operations the server does not offer (Choices.withoutOperations); each must be one of 4.8's. */
  withoutOperations?: readonly string[];
  /** Names of faults to switch on (see FAULTS). Faults are supported on the default variant only. */
  faults?: readonly string[];
  /** Which conformant variant to run (see VARIANT_NAMES); default: 'default'. */
  variant?: VariantName;
  /**
   * The variant's readings without its delays: no ledger lag, no execution delay or slow
   * operations (receipts still complete after the variant's number of polls). For the mutation
   * tests, whose subject is the rule code, not the timings the suites wait out.
   */
  prompt?: boolean;
}

export interface RunningReference {
  /** e.g. http://127.0.0.1:34567 (the API is at baseUrl + '/api/v1'). */
  baseUrl: string;
  /** baseUrl + '/__control/v1'. */
  controlUrl: string;
  controlToken: string;
  faults: readonly string[];
  variant: VariantName;
  /** Stops listening, drops open connections and pending work. */
  close(): Promise<void>;
}

/**
 * Starts a reference target. Rejects on an unknown fault or variant name (listing the valid
 * ones), on faults asked of a variant other than the default, or on a listen error.
 */
export async function startReference(opts: ReferenceOptions = {}): Promise<RunningReference> {
  const faults = resolveFaults(opts.faults ?? []);
  const variantChoices = resolveVariant(opts.variant);
  const choices = opts.prompt ? { ...variantChoices, ledgerLagMs: 0, receipts: { ...variantChoices.receipts, executionDelayMs: 0, slowOperations: {} } } : variantChoices;
  if (choices.variant !== 'default' && faults.names.length > 0) throw new Error(`faults are supported on the default variant only, not on "${choices.variant}"`);
  const controlToken = opts.controlToken ?? `wgct_${randomBase62(32)}`;
  if (controlToken === '') throw new Error('controlToken must not be empty');
  const without = opts.withoutOperations ?? [];
  const unknownOps = without.filter((n) => !OPERATIONS.some((o) => o.name === n));
  if (unknownOps.length > 0) throw new Error(`unknown operation ${unknownOps.join(', ')}; the catalog operations are ${OPERATIONS.map((o) => o.name).join(', ')}`);
  const store = new Store(faults, without.length > 0 ? { ...choices, withoutOperations: [...without] } : choices);
  const executor = new Executor(store, faults, new Map(OPERATIONS.filter((o) => !without.includes(o.name)).map((o) => [o.name, o])));
  const server = new Server(store, faults, executor, controlToken);
  // A long keep-alive: clients close idle sockets first (their timers run on a hint one second
  // shorter), so a loaded machine never sees the server close a socket a client is reusing.
  const http = createServer({ keepAliveTimeout: 65_000, headersTimeout: 60_000, requestTimeout: 120_000 }, server.listener);
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(opts.port ?? 0, host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  const { port } = http.address() as AddressInfo;
  const hostPart = host.includes(':') ? `[${host}]` : host;
  const baseUrl = `http://${hostPart}:${port}`;
  let closing: Promise<void> | undefined;
  return {
    baseUrl,
    controlUrl: `${baseUrl}/__control/v1`,
    controlToken,
    faults: faults.names,
    variant: choices.variant,
    close() {
      closing ??= new Promise<void>((resolve) => {
        executor.stop();
        http.close(() => resolve());
        http.closeAllConnections();
      });
      return closing;
    },
  };
}

export { FAULTS, type FaultDef } from './faults.ts';
export { VARIANT_NAMES, type VariantName } from './choices.ts';
