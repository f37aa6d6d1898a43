/**
 * One captured HTTP exchange, already redacted: secrets are replaced at capture time,
 * so nothing downstream (findings, reports, logs) can leak them.
 */
import type { CapturedRequest, CapturedResponse, Exchange, TransportError, TransportErrorKind } from './exchange-schema.ts';

/**
 * The request as sent, the answer, why no (complete) answer came, and the exchange: their
 * shapes and what each field means are declared once, as zod schemas, in exchange-schema.ts.
 */
export type { CapturedRequest, CapturedResponse, Exchange, TransportError, TransportErrorKind };

/** Whether a value a helper returned is an exchange (a cheap shape test, not a validation). */
export function isExchange(v: unknown): v is Exchange {
  const o = v as Exchange;
  return typeof o === 'object' && o !== null && typeof o.id === 'string' && typeof o.request === 'object' && o.request !== null && typeof o.retries === 'number';
}
