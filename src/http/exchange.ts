/**
 * One captured HTTP exchange, already redacted: secrets are replaced at capture time,
 * so nothing downstream (findings, reports, logs) can leak them.
 */
export interface CapturedRequest {
  method: string;
  /** Absolute URL, query included. */
  url: string;
  /** Header names lower-cased; secret values replaced by "[REDACTED:<name>]". */
  headers: Record<string, string>;
  /** Request body as sent (text), redacted; absent when there was none. */
  body?: string;
}

export interface CapturedResponse {
  status: number;
  headers: Record<string, string>;
  /** Body text, redacted and truncated to the capture limit. */
  text: string;
  /** Parsed JSON when the body parsed as JSON; undefined otherwise. */
  json?: unknown;
  /** True when the body parsed as JSON (json may legitimately be null). */
  isJson: boolean;
  /** Size in bytes of the (decoded) body actually read. */
  bytes: number;
  /** The body was cut at the response size cap (the rest was not read). */
  truncated: boolean;
}

/** Why no (complete) response was obtained. */
export type TransportErrorKind =
  | 'timeout' // no complete response within the per-request timeout
  | 'connection' // refused, reset, DNS, TLS...
  | 'too-large' // body over the size cap (response kept, truncated)
  | 'decompression' // bad or over-expanding content-encoding
  | 'redirect-refused' // 3xx to another origin; never followed with credentials
  | 'insecure-refused' // plain http to a non-loopback host without --allow-insecure-http
  | 'budget' // request or retry budget of the run exhausted
  | 'other';

export interface TransportError {
  kind: TransportErrorKind;
  message: string;
}

export interface Exchange {
  /** Sequence number within the run (unique per worker process, prefixed by a worker id). */
  id: string;
  request: CapturedRequest;
  response?: CapturedResponse;
  error?: TransportError;
  startedAt: string;
  durationMs: number;
  /** How many 429 retries were spent on this exchange. */
  retries: number;
}
