/**
 * The zod schemas of a captured exchange (exchange.ts holds the types and what the run needs of
 * them): the report validates what it writes and reads back with these. Kept apart so that the
 * vitest worker, which captures exchanges but never validates one, does not load zod (about
 * 0.1 s of its start-up on the 2-core host).
 */
import { z } from 'zod';

const Headers = z.record(z.string(), z.string());

/**
 * The request as sent. `url`: absolute, query included. `headers`: names lower-cased, secret
 * values replaced by "[REDACTED:<name>]". `body`: as sent (text), redacted; absent when none.
 */
export const CapturedRequestSchema = z.object({ method: z.string(), url: z.string(), headers: Headers, body: z.string().optional() });
export type CapturedRequest = z.infer<typeof CapturedRequestSchema>;

/**
 * The answer. `text`: body text, redacted and cut at the capture limit; `json`: parsed when the
 * body parsed as JSON (`isJson`; json may legitimately be null); `bytes`: size of the (decoded)
 * body read; `truncated`: the body was cut at the response size cap (the rest was not read).
 */
export const CapturedResponseSchema = z.object({
  status: z.number().int(),
  headers: Headers,
  text: z.string(),
  json: z.unknown().optional(),
  isJson: z.boolean(),
  bytes: z.number().int().nonnegative(),
  truncated: z.boolean(),
});
export type CapturedResponse = z.infer<typeof CapturedResponseSchema>;

/** Why no (complete) response was obtained. */
export const TRANSPORT_ERROR_KINDS = [
  'timeout', // no complete response within the per-request timeout
  'connection', // refused, reset, DNS, TLS...
  'too-large', // body over the size cap (response kept, truncated)
  'decompression', // bad or over-expanding content-encoding
  'redirect-refused', // 3xx to another origin; never followed with credentials
  'insecure-refused', // plain http to a non-loopback host without --allow-insecure-http
  'budget', // request or retry budget of the run exhausted
  'other',
] as const;
export type TransportErrorKind = (typeof TRANSPORT_ERROR_KINDS)[number];

export const TransportErrorSchema = z.object({ kind: z.enum(TRANSPORT_ERROR_KINDS), message: z.string() });
export type TransportError = z.infer<typeof TransportErrorSchema>;

/**
 * One exchange. `id`: sequence number within the run (unique per worker process, prefixed by a
 * worker id); `retries`: how many 429 retries were spent on it. The one declaration of the
 * shape: the report's view (src/report/model.ts) is derived from it.
 */
export const ExchangeSchema = z.object({
  id: z.string(),
  request: CapturedRequestSchema,
  response: CapturedResponseSchema.optional(),
  error: TransportErrorSchema.optional(),
  startedAt: z.string(),
  durationMs: z.number().nonnegative(),
  retries: z.number().int().nonnegative(),
});
export type Exchange = z.infer<typeof ExchangeSchema>;
