/**
 * One bounded HTTP request through undici, captured as a redacted Exchange. Shared by the
 * API client (client.ts) and the control client (../control/client.ts). It never throws for
 * anything the server does: every problem becomes `Exchange.error`.
 */
import type { Agent as UndiciAgent, Dispatcher, EnvHttpProxyAgent as UndiciEnvHttpProxyAgent } from 'undici';
import { Agent, EnvHttpProxyAgent } from './undici.ts';
import type { CapturedRequest, CapturedResponse, Exchange, TransportError } from './exchange.ts';
import { BodySink, type BodyRead } from './body.ts';
import type { SecretRegistry } from './redact.ts';
import { currentLimiter } from './limit.ts';

export interface TransportOptions {
  dispatcher: Dispatcher;
  secrets: SecretRegistry;
  /** Total time for one attempt: connect, headers and the whole body. */
  timeoutMs: number;
  maxResponseBytes: number;
  maxDecompressedBytes: number;
  allowInsecureHttp: boolean;
}

export interface OutgoingRequest {
  method: string;
  /** Absolute URL. */
  url: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
}

export interface TransportResult {
  exchange: Exchange;
  /** False when the request was refused before anything was put on the wire. */
  sent: boolean;
  /**
   * The response text before redaction. Only the control client reads it (a created key's
   * secret arrives in a response); it is never stored in an Exchange.
   */
  rawText?: string;
}

const LOOPBACK_NAMES = new Set(['localhost', '::1', '[::1]']);

/** True for hosts that never leave the machine: localhost, 127.0.0.0/8, ::1. */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.toLowerCase();
  return LOOPBACK_NAMES.has(h) || h.endsWith('.localhost') || /^127(\.\d{1,3}){3}$/.test(h);
}

/** Why a URL may not be used: a non-http(s) scheme, or plain http off this machine. */
export function insecureReason(url: URL, allowInsecureHttp: boolean): string | undefined {
  if (url.protocol === 'https:') return undefined;
  if (url.protocol !== 'http:') return `unsupported URL scheme "${url.protocol}" (use https: or http:)`;
  if (allowInsecureHttp || isLoopbackHost(url.hostname)) return undefined;
  return `refused to send to ${url.origin}: plain http to a non-loopback host would expose API keys on the network; ` + 'use https, or pass --allow-insecure-http to accept the risk';
}

/** Proxies to use instead of the environment's (tests); each unset one is read from the environment. */
export interface ProxySettings {
  httpProxy?: string;
  httpsProxy?: string;
  noProxy?: string;
}

/**
 * The connection pool of a run (keep-alive), honouring the proxy variables of corporate networks:
 * HTTPS_PROXY, HTTP_PROXY and NO_PROXY (or their lower-case forms), read by undici's
 * EnvHttpProxyAgent when the pool is created. Loopback hosts are always reached directly, as Go's
 * net/http does: a proxy cannot reach this machine's loopback, and the embedded reference target
 * lives there. Through a proxy every request is tunnelled (CONNECT, also for http:), so the proxy
 * sees the target's host and port, never a request or its key. A private CA is trusted through
 * NODE_EXTRA_CA_CERTS, which Node reads at start, for direct and tunnelled connections alike.
 * No redirect is ever followed (no redirect interceptor): a 3xx is captured as the answer, so a key
 * never travels to the origin a Location names, through a proxy or not.
 */
export class TargetAgent extends Agent {
  /** Everything not on loopback: through the environment's proxy, or directly when it names none or NO_PROXY matches. */
  readonly #viaEnvironment: UndiciEnvHttpProxyAgent;
  #viaEnvironmentClosed: Promise<void> | undefined;

  constructor(opts: UndiciAgent.Options = {}, proxy: ProxySettings = {}) {
    super(opts);
    this.#viaEnvironment = new EnvHttpProxyAgent({ ...opts, ...proxy });
  }

  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    const origin = typeof options.origin === 'string' ? new URL(options.origin) : options.origin;
    const loopback = origin !== undefined && isLoopbackHost(origin.hostname.replace(/^\[(.*)\]$/, '$1'));
    return loopback ? super.dispatch(options, handler) : this.#viaEnvironment.dispatch(options, handler);
  }

  // undici's close() and destroy() without a callback call themselves again with one: the
  // overrides always hand the base class a callback, so they never recurse.
  override close(): Promise<void>;
  override close(callback: () => void): void;
  override close(callback?: () => void): Promise<void> | void {
    const own = settle((cb) => super.close(cb));
    const done = Promise.all([own, (this.#viaEnvironmentClosed ??= this.#viaEnvironment.close())]).then(() => undefined);
    if (!callback) return done;
    void done.then(callback, callback);
  }

  override destroy(): Promise<void>;
  override destroy(err: Error | null): Promise<void>;
  override destroy(callback: () => void): void;
  override destroy(err: Error | null, callback: () => void): void;
  override destroy(a?: Error | null | (() => void), b?: () => void): Promise<void> | void {
    const err = typeof a === 'function' ? null : (a ?? null);
    const callback = typeof a === 'function' ? a : b;
    const own = settle((cb) => super.destroy(err, cb));
    const done = Promise.all([own, this.#viaEnvironment.destroy(err)]).then(() => undefined);
    if (!callback) return done;
    void done.then(callback, callback);
  }
}

/** A promise of an undici callback-style operation (`callback(err)`). */
function settle(start: (callback: () => void) => void): Promise<void> {
  return new Promise<void>((resolve, reject) => start(((err?: Error | null) => (err ? reject(err) : resolve())) as () => void));
}

function joinHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'ETIMEDOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_CLOSED',
  'UND_ERR_DESTROYED',
]);

/** Maps a thrown transport error to an error kind; the message never carries request data. */
export function classifyError(e: unknown, timedOut: boolean, timeoutMs: number, phase: 'headers' | 'body'): TransportError {
  if (timedOut) return { kind: 'timeout', message: `no complete response within ${timeoutMs} ms (timed out waiting for the ${phase})` };
  const err = e as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = err?.code ?? err?.cause?.code ?? '';
  const message = err?.message ?? String(e);
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
    return { kind: 'timeout', message: `no complete response within ${timeoutMs} ms (${message})` };
  }
  if (CONNECTION_CODES.has(code) || /^(ERR_TLS|CERT_|DEPTH_ZERO|UNABLE_TO_|SELF_SIGNED)/.test(code)) {
    return { kind: 'connection', message: `${code}: ${message}` };
  }
  // A header flood is a size problem, like a body over the cap.
  if (code === 'UND_ERR_HEADERS_OVERFLOW' || code === 'HPE_HEADER_OVERFLOW') return { kind: 'too-large', message: `response headers exceed the parser's limit (${message})` };
  if (code.startsWith('HPE_')) return { kind: 'connection', message: `invalid HTTP response (${code}): ${message}` };
  // Not HTTP at all (a wrong port answering with another protocol): undici leaves the code unset.
  if ((e as { name?: string })?.name === 'HTTPParserError') return { kind: 'connection', message: `invalid HTTP response: ${message}` };
  return { kind: 'other', message: code ? `${code}: ${message}` : message };
}

/**
 * Characters of response text an exchange keeps. Exchanges travel into findings, worker
 * messages and every report rendering: what a run holds must not grow with what a target
 * sends, only with the number of exchanges. The JSON view is parsed from the whole text.
 */
export const MAX_CAPTURED_TEXT = 256 * 1024;

/** Nesting beyond which a JSON body is not handed on as a value (no API shape comes close). */
export const MAX_JSON_DEPTH = 512;

/** The first MAX_CAPTURED_TEXT characters, as a fresh string (a slice would pin the whole body). */
function capture(text: string): string {
  return text.length > MAX_CAPTURED_TEXT ? Buffer.from(text.slice(0, MAX_CAPTURED_TEXT), 'utf8').toString('utf8') : text;
}

/** True when `value` nests deeper than `max` arrays/objects; iterative, so it cannot overflow. */
export function jsonDepthExceeds(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth >= max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return false;
}

function captureRequest(req: OutgoingRequest, secrets: SecretRegistry): CapturedRequest {
  const captured: CapturedRequest = {
    method: req.method,
    url: secrets.redact(req.url),
    headers: secrets.redactHeaders(req.headers),
  };
  if (req.body !== undefined) {
    const text = typeof req.body === 'string' ? req.body : Buffer.from(req.body).toString('utf8');
    captured.body = secrets.redact(text);
  }
  return captured;
}

/**
 * Sends one request within the bounds of `opts` and captures it. Never throws. Where the run
 * bounds its requests in flight (--max-in-flight, limit.ts), it first waits for a slot; the
 * wait is not part of the request's time.
 */
export function performRequest(req: OutgoingRequest, opts: TransportOptions, id: string, keepRawText = false): Promise<TransportResult> {
  const limiter = currentLimiter();
  return limiter ? limiter.run(() => performOnce(req, opts, id, keepRawText)) : performOnce(req, opts, id, keepRawText);
}

async function performOnce(req: OutgoingRequest, opts: TransportOptions, id: string, keepRawText: boolean): Promise<TransportResult> {
  const started = Date.now();
  const exchange: Exchange = {
    id,
    request: captureRequest(req, opts.secrets),
    startedAt: new Date(started).toISOString(),
    durationMs: 0,
    retries: 0,
  };
  let sent = false;
  const finish = (): TransportResult => {
    exchange.durationMs = Date.now() - started;
    // Error messages can quote URLs or server text: redact them like everything else.
    if (exchange.error) exchange.error.message = opts.secrets.redact(exchange.error.message);
    return { exchange, sent };
  };

  let url: URL;
  try {
    url = new URL(req.url);
  } catch {
    exchange.error = { kind: 'other', message: `invalid URL: ${exchange.request.url}` };
    return finish();
  }
  const refused = insecureReason(url, opts.allowInsecureHttp);
  if (refused) {
    exchange.error = { kind: 'insecure-refused', message: refused };
    return finish();
  }

  sent = true;
  let phase: 'headers' | 'body' = 'headers';
  let timedOut = false;
  try {
    const answer = await exchangeRaw(req, url, opts, () => {
      timedOut = true;
    });
    phase = 'body';
    const { status, headers, read } = answer;
    const text = UTF8.decode(read.data);
    let redacted = opts.secrets.redact(text);
    let json: unknown;
    let isJson = false;
    let jsonError: TransportError | undefined;
    if (NOT_BLANK.test(redacted)) {
      try {
        // Parsed from the redacted text, so the JSON view cannot hold a secret either.
        json = JSON.parse(redacted);
        isJson = true;
      } catch {
        /* not JSON: isJson stays false */
      }
    }
    if (isJson && mayNestBeyond(redacted, MAX_JSON_DEPTH) && jsonDepthExceeds(json, MAX_JSON_DEPTH)) {
      // Every reader of the value (stringify, validators, evidence) would overflow the stack.
      json = undefined;
      isJson = false;
      jsonError = { kind: 'too-large', message: `the JSON body nests deeper than ${MAX_JSON_DEPTH} levels; it is kept as text only` };
    } else if (isJson && redacted.includes('\\u')) {
      // A secret spelled with \u escapes is not in the text literally, but it is in the parsed
      // value: redact the value and keep its serialisation as the text.
      const again = JSON.stringify(json);
      const clean = opts.secrets.redact(again);
      if (clean !== again) {
        json = JSON.parse(clean);
        redacted = clean;
      }
    }
    const response: CapturedResponse = {
      status,
      headers: opts.secrets.redactHeaders(headers),
      text: capture(redacted),
      isJson,
      bytes: read.data.length,
      truncated: read.truncated,
    };
    if (isJson) response.json = json;
    exchange.response = response;
    if (read.streamError !== undefined) exchange.error = classifyError(read.streamError, timedOut, opts.timeoutMs, 'body');
    else if (read.error) exchange.error = read.error;
    else if (jsonError) exchange.error = jsonError;
    const result = finish();
    if (keepRawText) result.rawText = text;
    return result;
  } catch (e) {
    exchange.error = classifyError(e, timedOut, opts.timeoutMs, phase);
    return finish();
  }
}

/** One decoder for every answer: decoding a whole body at once keeps no state between calls. */
const UTF8 = new TextDecoder('utf-8');
const NOT_BLANK = /\S/;

/**
 * Whether a JSON text has more than `max` opening brackets: a value cannot nest deeper than that
 * (each level opens one), so most answers skip the walk of their parsed value.
 */
function mayNestBeyond(text: string, max: number): boolean {
  if (text.length <= max) return false;
  let count = 0;
  for (const open of ['[', '{']) {
    for (let i = text.indexOf(open); i !== -1; i = text.indexOf(open, i + 1)) if (++count > max) return true;
  }
  return false;
}

/** The status, headers and body of one answer, as the transport reads them. */
interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  read: BodyRead;
}

/**
 * One request through the dispatcher's own handler interface (undici's request API adds an
 * AbortSignal, a stream and an async iterator per request: measured 50 -> 28 microseconds of CPU
 * per request on loopback, docs/benchmark.md, session 22). Resolves with the answer once its
 * body has ended, failed (then `read.streamError`) or been cut (the cap, a bomb); rejects when no
 * answer came (a connection failure, an invalid request, the time limit before the headers). The
 * time limit covers connecting, the headers and the whole body: past it the request is aborted,
 * wherever it is, and `onTimeout` is called first.
 */
function exchangeRaw(req: OutgoingRequest, url: URL, opts: TransportOptions, onTimeout: () => void): Promise<RawAnswer> {
  return new Promise<RawAnswer>((resolve, reject) => {
    let controller: { abort(reason: Error): void } | undefined;
    let sink: BodySink | undefined;
    let status = 0;
    let headers: Record<string, string> = {};
    /** Once settled, whatever undici still reports (the abort it was asked for) is ignored. */
    let settled = false;
    let aborted: Error | undefined;
    const abort = (reason: Error): void => {
      aborted ??= reason;
      controller?.abort(reason);
    };
    const end = (streamError?: unknown): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      const body = sink!;
      void body.end(streamError).then((read) => resolve({ status, headers, read }));
    };
    const fail = (err: unknown): void => {
      if (settled) return;
      if (sink) return end(err);
      settled = true;
      clearTimeout(timer);
      reject(err);
    };
    const timer = setTimeout(() => {
      onTimeout();
      const reason = new Error(`timed out after ${opts.timeoutMs} ms`);
      // Settled here: a request still waiting for its connection is aborted once it has one.
      fail(reason);
      abort(reason);
    }, opts.timeoutMs);
    const handler = {
      onRequestStart(c: { abort(reason: Error): void }) {
        controller = c;
        if (aborted) c.abort(aborted);
      },
      onRequestUpgrade() {
        // Never asked for (no Upgrade header is sent); undici reports an unexpected one as an error.
      },
      onResponseStart(_c: unknown, statusCode: number, raw: Record<string, string | string[] | undefined>) {
        // 1xx are interim: the final answer follows.
        if (settled || statusCode < 200) return;
        status = statusCode;
        headers = joinHeaders(raw);
        sink = new BodySink(headers['content-encoding'], opts);
      },
      onResponseData(_c: unknown, chunk: Buffer) {
        if (settled || !sink) return;
        if (sink.write(chunk)) return;
        // The cap, a bomb or an undecodable body: what was read is the answer; the rest is not read.
        end();
        abort(new Error('the body was cut: no more of it is read'));
      },
      onResponseEnd() {
        if (sink) end();
        else fail(new Error('the response ended before its headers'));
      },
      onResponseError(_c: unknown, err: Error) {
        fail(err);
      },
    };
    try {
      opts.dispatcher.dispatch(
        {
          origin: url.origin,
          path: url.pathname + url.search,
          method: req.method as Dispatcher.HttpMethod,
          headers: req.headers,
          body: req.body ?? null,
          // Backstops in case a stalled socket outlives the abort.
          headersTimeout: opts.timeoutMs + 1000,
          bodyTimeout: opts.timeoutMs + 1000,
        },
        handler as unknown as Dispatcher.DispatchHandler,
      );
    } catch (e) {
      fail(e);
    }
  });
}
