/**
 * A recording dispatcher for the benchmark: it sits under the suite's own HTTP client (the
 * sessions take a dispatcher) and keeps every request as it went on the wire, with its answer,
 * labelled with what the harness was doing at the time (a check id, a suite's set-up...).
 * The records hold live secrets of an ephemeral reference target: they stay in memory and are
 * never written anywhere.
 */
import { Agent, DecoratorHandler, Dispatcher } from 'undici';

/** One request as sent, and what came back. */
export interface RecordedRequest {
  /** Position in the whole recording (0-based). */
  index: number;
  /** What the harness was doing (see RecordingDispatcher.label). */
  label: string;
  /** Which stream of work it belongs to, e.g. the suite (see RecordingDispatcher.group). */
  group: string;
  method: string;
  origin: string;
  /** Path and query, as sent. */
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  status?: number;
  /** When the answer's status line arrived (epoch ms). */
  respondedAt?: number;
  responseHeaders: Record<string, string>;
  /** The response body bytes (uncompressed as the reference sends them). */
  responseBody: Buffer;
  /** Transport failure, if any. */
  error?: string;
}

/** Called before a request is forwarded; its promise delays the request (e.g. read a ledger before a delete). */
export type BeforeDispatch = (req: { method: string; origin: string; path: string }) => Promise<void> | undefined;

/** Undici request headers in any of their shapes, as a lower-cased record. */
export function headerRecord(headers: Dispatcher.DispatchOptions['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  if (!headers) return out;
  if (Array.isArray(headers)) {
    for (let i = 0; i + 1 < headers.length; i += 2) out[String(headers[i]).toLowerCase()] = String(headers[i + 1]);
  } else if (typeof (headers as Iterable<unknown>)[Symbol.iterator] === 'function') {
    for (const [k, v] of headers as Iterable<[string, string | string[] | undefined]>) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  } else {
    for (const [k, v] of Object.entries(headers)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : String(v);
  }
  return out;
}

function responseHeaderRecord(headers: Record<string, string | string[] | undefined> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers ?? {})) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

type Handler = Dispatcher.DispatchHandler;
type Controller = Dispatcher.DispatchController;
type Incoming = Record<string, string | string[] | undefined>;

/**
 * Records the answer of one request into its record, then hands everything on unchanged.
 * undici's DecoratorHandler turns the request's (legacy) handler into the controller style.
 */
class RecordingHandler implements Handler {
  private readonly inner: Required<Pick<Handler, 'onRequestStart' | 'onRequestUpgrade' | 'onResponseStart' | 'onResponseData' | 'onResponseEnd' | 'onResponseError'>>;
  private readonly chunks: Buffer[] = [];
  constructor(
    handler: Handler,
    private readonly record: RecordedRequest,
  ) {
    this.inner = new DecoratorHandler(handler) as unknown as RecordingHandler['inner'];
  }
  onRequestStart(controller: Controller, context: unknown): void {
    this.inner.onRequestStart(controller, context);
  }
  onRequestUpgrade(controller: Controller, statusCode: number, headers: Incoming, socket: import('node:stream').Duplex): void {
    this.inner.onRequestUpgrade(controller, statusCode, headers, socket);
  }
  onResponseStart(controller: Controller, statusCode: number, headers: Incoming, statusMessage?: string): void {
    this.record.status = statusCode;
    this.record.respondedAt = Date.now();
    this.record.responseHeaders = responseHeaderRecord(headers);
    this.inner.onResponseStart(controller, statusCode, headers, statusMessage);
  }
  onResponseData(controller: Controller, chunk: Buffer): void {
    this.chunks.push(Buffer.from(chunk));
    this.inner.onResponseData(controller, chunk);
  }
  onResponseEnd(controller: Controller, trailers: Incoming): void {
    this.record.responseBody = Buffer.concat(this.chunks);
    this.inner.onResponseEnd(controller, trailers);
  }
  onResponseError(controller: Controller, error: Error): void {
    this.record.error = error.message;
    this.record.responseBody = Buffer.concat(this.chunks);
    this.inner.onResponseError(controller, error);
  }
}

/**
 * A keep-alive Agent that records what goes through it. Set `label` before the harness does
 * something; every request sent until the next change carries it.
 */
export class RecordingDispatcher extends Dispatcher {
  readonly records: RecordedRequest[] = [];
  /** Labels the requests from now on (e.g. the running check's id). */
  label = 'run';
  /** Groups the requests from now on (e.g. the running suite): one replay stream per group. */
  group = 'run';
  private readonly agent: Agent;
  private before?: BeforeDispatch;

  constructor(agent: Agent, opts: { before?: BeforeDispatch } = {}) {
    super();
    this.agent = agent;
    if (opts.before) this.before = opts.before;
  }

  get closed(): boolean {
    return this.agent.closed;
  }

  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    const origin = String(options.origin ?? '');
    const body = typeof options.body === 'string' || Buffer.isBuffer(options.body) ? options.body : options.body instanceof Uint8Array ? Buffer.from(options.body) : undefined;
    const record: RecordedRequest = {
      index: this.records.length,
      label: this.label,
      group: this.group,
      method: options.method,
      origin,
      path: options.path,
      headers: headerRecord(options.headers),
      responseHeaders: {},
      responseBody: Buffer.alloc(0),
      ...(body !== undefined ? { body } : {}),
    };
    this.records.push(record);
    const wrapped = new RecordingHandler(handler, record);
    const waiting = this.before?.({ method: options.method, origin, path: options.path });
    if (!waiting) return this.agent.dispatch(options, wrapped);
    void waiting.then(
      () => this.agent.dispatch(options, wrapped),
      () => this.agent.dispatch(options, wrapped),
    );
    return true;
  }

  override close(): Promise<void>;
  override close(callback: () => void): void;
  override close(callback?: () => void): Promise<void> | void {
    const done = this.agent.closed ? Promise.resolve() : this.agent.close();
    if (callback) void done.then(callback, callback);
    else return done;
  }

  override destroy(): Promise<void>;
  override destroy(err: Error | null): Promise<void>;
  override destroy(callback: () => void): void;
  override destroy(err: Error | null, callback: () => void): void;
  override destroy(a?: Error | null | (() => void), b?: () => void): Promise<void> | void {
    const err = typeof a === 'function' ? null : (a ?? null);
    const callback = typeof a === 'function' ? a : b;
    const done = this.agent.destroy(err);
    if (callback) void done.then(callback, callback);
    else return done;
  }
}
