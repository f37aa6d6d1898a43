/**
 * The one bounded HTTP client of the suite: an ApiClient bound to one target. Every request is
 * bounded in time and size, 429s are retried within a run-wide budget, keys only go to the
 * target's origin, and every exchange is captured redacted.
 */
import type { Dispatcher } from 'undici';
import type { ApiClient, ApiRequest } from './api.ts';
import type { Exchange } from './exchange.ts';
import { encodeQuery } from './query.ts';
import type { SecretRegistry } from './redact.ts';
import { currentLimiter } from './limit.ts';
import { DEFAULT_RETRY_429, RetryBudget, planRetry, type Retry429Options } from './retry.ts';
import { performRequest, TargetAgent, type OutgoingRequest, type ProxySettings, type TransportOptions } from './transport.ts';

export const DEFAULT_MAX_RESPONSE_BYTES = 8 * 1024 * 1024;
export const API_PREFIX = '/api/v1';
export const USER_AGENT = 'wg-conformance/0.1';

export interface HttpClientOptions {
  /** Target origin plus an optional path prefix; the API is at baseUrl + "/api/v1". */
  baseUrl: string;
  /** Total time per attempt (headers and body). */
  timeoutMs: number;
  /** Wire bytes read per response; default 8 MiB. */
  maxResponseBytes?: number;
  /** Decoded bytes per response (decompression bound); default maxResponseBytes. */
  maxDecompressedBytes?: number;
  retry429?: Partial<Retry429Options>;
  allowInsecureHttp?: boolean;
  secrets: SecretRegistry;
  /** A keep-alive Agent shared by the run; when absent the client creates (and closes) its own. */
  dispatcher?: Dispatcher;
  /** Prefix of exchange ids, e.g. a worker id; default "p<pid>c<n>". */
  idPrefix?: string;
  /** Injected for tests; default setTimeout. */
  sleep?: (ms: number) => Promise<void>;
}

export interface HttpClient extends ApiClient {
  readonly baseUrl: string;
  /** baseUrl + "/api/v1". */
  readonly apiUrl: string;
  /** Requests put on the wire by this client (each 429 retry counts). */
  readonly requestCount: number;
  readonly secrets: SecretRegistry;
  /** Closes the dispatcher if the client created it; a shared one is left to its owner. */
  close(): Promise<void>;
}

/** A keep-alive pool for one run, through the environment's proxy if any (TargetAgent); share it between clients and close it at the end. */
export function createDispatcher(opts: { connectTimeoutMs?: number; proxy?: ProxySettings } = {}): TargetAgent {
  return new TargetAgent({ keepAliveTimeout: 4_000, keepAliveMaxTimeout: 10_000, connect: { timeout: opts.connectTimeoutMs ?? 10_000 } }, opts.proxy);
}

let clientCount = 0;

const defaultSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Creates the ApiClient for one target. See HttpClientOptions for the bounds. */
export function createHttpClient(opts: HttpClientOptions): HttpClient {
  const baseUrl = opts.baseUrl.replace(/\/+$/, '');
  const base = new URL(baseUrl); // throws on a malformed baseUrl: a usage error, caught by config validation first
  const apiUrl = baseUrl + API_PREFIX;
  const ownDispatcher = opts.dispatcher ? undefined : createDispatcher({ connectTimeoutMs: opts.timeoutMs });
  const maxResponseBytes = opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const transport: TransportOptions = {
    dispatcher: opts.dispatcher ?? ownDispatcher!,
    secrets: opts.secrets,
    timeoutMs: opts.timeoutMs,
    maxResponseBytes,
    maxDecompressedBytes: opts.maxDecompressedBytes ?? maxResponseBytes,
    allowInsecureHttp: opts.allowInsecureHttp ?? false,
  };
  const retry = { ...DEFAULT_RETRY_429, ...opts.retry429 };
  const budget = retry.budget instanceof RetryBudget ? retry.budget : new RetryBudget(retry.budget);
  const sleep = opts.sleep ?? defaultSleep;
  const idPrefix = opts.idPrefix ?? `p${process.pid}c${++clientCount}`;
  let seq = 0;
  let requests = 0;
  const breaker = new DeadTargetBreaker();

  function build(req: ApiRequest): OutgoingRequest {
    const path = req.path.startsWith('/') ? req.path : `/${req.path}`;
    const query = encodeQuery(req.query);
    const headers: Record<string, string> = { 'user-agent': USER_AGENT, accept: 'application/json' };
    let body: string | Uint8Array | undefined;
    if (req.rawBody !== undefined) body = req.rawBody;
    else if (req.body !== undefined) {
      body = JSON.stringify(req.body);
      headers['content-type'] = 'application/json';
    }
    if (req.idempotencyKey !== undefined) headers['idempotency-key'] = req.idempotencyKey;
    for (const [name, value] of Object.entries(req.headers ?? {})) headers[name.toLowerCase()] = value;
    if (req.key) {
      // Registered before capture so the exchange can only ever hold the marker.
      opts.secrets.add(req.key.secret, req.key.name);
      if (req.auth === 'x-api-key') headers['x-api-key'] = req.key.secret;
      else headers['authorization'] = `Bearer ${req.key.secret}`;
    }
    const out: OutgoingRequest = { method: req.method, url: apiUrl + path + (query ? `?${query}` : ''), headers };
    if (body !== undefined) out.body = body;
    return out;
  }

  async function send(req: ApiRequest): Promise<Exchange> {
    const out = build(req);
    const id = `${idPrefix}-${++seq}`;
    let target: URL | undefined;
    try {
      target = new URL(out.url);
    } catch {
      /* reported by performRequest as an invalid URL */
    }
    if (target && target.origin !== base.origin) {
      // Keys only ever go to the target's origin, whatever the path says.
      return originRefused(out, id, base.origin, opts.secrets);
    }
    // Capture the URL exactly as it goes on the wire (WHATWG-normalised), so curl replays it.
    if (target) out.url = target.href;
    if (breaker.shouldSkip()) {
      return notSent(out, id, opts.secrets, {
        kind: 'budget',
        message: `not sent: the target did not answer the last ${breaker.threshold} requests (timeouts or connection failures); one request in ${breaker.probeEvery} probes whether it is back`,
      });
    }
    const started = Date.now();
    let attempt = 0;
    for (;;) {
      const { exchange, sent } = await performRequest(out, transport, id);
      if (sent) requests++;
      breaker.record(exchange);
      exchange.retries = attempt;
      exchange.startedAt = new Date(started).toISOString();
      const status = exchange.response?.status;
      const plan = req.retry429 === false || exchange.error || status !== 429 ? undefined : planRetry(exchange.response!.headers['retry-after'], attempt, retry, budget);
      // The run's pace learns from every answer: a 429 it retries, a slow answer (limit.ts).
      currentLimiter()?.answered({ status, durationMs: exchange.durationMs, ...(plan && 'waitMs' in plan ? { retryWaitMs: plan.waitMs } : {}) });
      exchange.durationMs = Date.now() - started;
      if (!plan || 'stop' in plan) return exchange;
      await sleep(plan.waitMs);
      attempt++;
    }
  }

  return {
    baseUrl,
    apiUrl,
    secrets: opts.secrets,
    get requestCount() {
      return requests;
    },
    send,
    async close() {
      // Idempotent: undici rejects a second close of the same Agent.
      if (ownDispatcher && !ownDispatcher.closed) await ownDispatcher.close();
    },
  };
}

function originRefused(out: OutgoingRequest, id: string, origin: string, secrets: SecretRegistry): Exchange {
  return notSent(out, id, secrets, { kind: 'other', message: `refused: the request URL leaves the target origin ${origin}; credentials are only sent there` });
}

/** An exchange for a request the client decided not to put on the wire. */
function notSent(out: OutgoingRequest, id: string, secrets: SecretRegistry, error: Exchange['error']): Exchange {
  return {
    id,
    request: { method: out.method, url: secrets.redact(out.url), headers: secrets.redactHeaders(out.headers) },
    error,
    startedAt: new Date().toISOString(),
    durationMs: 0,
    retries: 0,
  };
}

/**
 * Stops a run from paying a full timeout on every request to a target that has stopped
 * answering: after `threshold` consecutive timeouts or connection failures, requests are not
 * sent (error kind "budget", which checks report as not observable), except one probe in every
 * `probeEvery`; any answer closes the breaker again.
 */
export class DeadTargetBreaker {
  private failures = 0;
  private skipped = 0;
  constructor(
    readonly threshold = 5,
    readonly probeEvery = 20,
  ) {}

  /** True when the next request should not be sent. */
  shouldSkip(): boolean {
    if (this.failures < this.threshold) return false;
    this.skipped += 1;
    return this.skipped % this.probeEvery !== 0;
  }

  /** Records how a sent request ended. */
  record(ex: Exchange): void {
    // Headers followed by a stalled body is no answer either: only the error kind decides.
    if (ex.error?.kind === 'timeout' || ex.error?.kind === 'connection') {
      this.failures += 1;
    } else if (ex.response) {
      this.failures = 0;
      this.skipped = 0;
    }
  }

  get open(): boolean {
    return this.failures >= this.threshold;
  }
}
