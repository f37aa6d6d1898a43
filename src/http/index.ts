/** The bounded HTTP layer: client, redaction, curl rendering. */
export { createHttpClient, createDispatcher, API_PREFIX, DEFAULT_MAX_RESPONSE_BYTES, type HttpClient, type HttpClientOptions } from './client.ts';
export { SecretRegistry, redactionMarker, CREDENTIAL_HEADERS } from './redact.ts';
export { toCurl, curlEnvVars, secretEnvVar, shellQuote } from './curl.ts';
export { RetryBudget, parseRetryAfter, DEFAULT_RETRY_429, type Retry429Options } from './retry.ts';
export { InFlightLimiter, limitTarget, withInFlightLimit, currentLimiter, DEFAULT_MAX_IN_FLIGHT } from './limit.ts';
export { encodeQuery } from './query.ts';
export { isLoopbackHost, insecureReason } from './transport.ts';
export type { Exchange, CapturedRequest, CapturedResponse, TransportError, TransportErrorKind } from './exchange.ts';
