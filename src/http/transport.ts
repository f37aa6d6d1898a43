/**
 * One bounded HTTP request through undici, captured as a redacted Exchange. Shared by the
 * API client (client.ts) and the control client (../control/client.ts). It never throws for
 * anything the server does: every problem becomes `Exchange.error`.
 */
import type { Dispatcher } from 'undici';
import type { CapturedRequest, CapturedResponse, Exchange, TransportError } from './exchange.ts';
import { readBody } from './body.ts';
import type { SecretRegistry } from './redact.ts';

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
  return (
    `refused to send to ${url.origin}: plain http to a non-loopback host would expose API keys on the network; ` +
    'use https, or pass --allow-insecure-http to accept the risk'
  );
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
  'ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'ETIMEDOUT',
  'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_CLOSED', 'UND_ERR_DESTROYED',
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
  if (code.startsWith('HPE_')) return { kind: 'connection', message: `invalid HTTP response (${code}): ${message}` };
  return { kind: 'other', message: code ? `${code}: ${message}` : message };
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

/** Sends one request within the bounds of `opts` and captures it. Never throws. */
export async function performRequest(
  req: OutgoingRequest,
  opts: TransportOptions,
  id: string,
  keepRawText = false,
): Promise<TransportResult> {
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

  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, opts.timeoutMs);
  let phase: 'headers' | 'body' = 'headers';
  sent = true;
  try {
    const res = await opts.dispatcher.request({
      origin: url.origin,
      path: url.pathname + url.search,
      method: req.method as Dispatcher.HttpMethod,
      headers: req.headers,
      body: req.body ?? null,
      signal: controller.signal,
      // Backstops in case the abort signal is not observed by a stalled socket.
      headersTimeout: opts.timeoutMs + 1000,
      bodyTimeout: opts.timeoutMs + 1000,
    });
    phase = 'body';
    const headers = joinHeaders(res.headers);
    const read = await readBody(res.body, headers['content-encoding'], opts);
    const text = new TextDecoder('utf-8').decode(read.data);
    const redacted = opts.secrets.redact(text);
    const response: CapturedResponse = {
      status: res.statusCode,
      headers: opts.secrets.redactHeaders(headers),
      text: redacted,
      isJson: false,
      bytes: read.data.length,
      truncated: read.truncated,
    };
    if (redacted.trim().length > 0) {
      try {
        // Parsed from the redacted text, so the JSON view cannot hold a secret either.
        response.json = JSON.parse(redacted);
        response.isJson = true;
      } catch {
        /* not JSON: isJson stays false */
      }
    }
    exchange.response = response;
    if (read.streamError !== undefined) exchange.error = classifyError(read.streamError, timedOut, opts.timeoutMs, 'body');
    else if (read.error) exchange.error = read.error;
    const result = finish();
    if (keepRawText) result.rawText = text;
    return result;
  } catch (e) {
    exchange.error = classifyError(e, timedOut, opts.timeoutMs, phase);
    return finish();
  } finally {
    clearTimeout(timer);
  }
}
