/**
 * The error envelope of the service (seed part 7): every API error body is
 * `{defined, code, status, message, data?}`. Handlers throw {@link ApiError}; the server
 * renders it with {@link envelope}.
 */

/** The known error codes, keyed by HTTP status. */
export const KNOWN_ERRORS = {
  400: { code: 'BAD_REQUEST', message: 'Invalid request' },
  401: { code: 'UNAUTHORIZED', message: 'An API key is required' },
  403: { code: 'FORBIDDEN', message: 'Access denied' },
  404: { code: 'NOT_FOUND', message: 'Resource not found' },
  409: { code: 'CONFLICT', message: 'Request conflicts with current state' },
  429: { code: 'TOO_MANY_REQUESTS', message: 'Rate limit exceeded' },
  500: { code: 'INTERNAL_SERVER_ERROR', message: 'Internal server error' },
  503: { code: 'SERVICE_UNAVAILABLE', message: 'Capability is not configured' },
} as const;

export type KnownStatus = keyof typeof KNOWN_ERRORS;

/**
 * Statuses outside the seed's table that a variant may answer (seed part 7: for codes outside
 * the table `defined` is false and code and status are free-form). The default variant never
 * uses them.
 */
export const OTHER_ERRORS = {
  405: { code: 'METHOD_NOT_ALLOWED', message: 'Method not allowed' },
  413: { code: 'PAYLOAD_TOO_LARGE', message: 'Request body too large' },
  415: { code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Unsupported media type' },
  422: { code: 'VALIDATION_ERROR', message: 'Validation failed' },
} as const;

export type OtherStatus = keyof typeof OTHER_ERRORS;
export type ErrorStatus = KnownStatus | OtherStatus;

/** True for a status of the seed's table (defined errors). */
export const isKnownStatus = (status: number): status is KnownStatus => Object.hasOwn(KNOWN_ERRORS, status);

/** One problem found in a request body or query, with where it was found. */
export interface Issue {
  /** JSON-pointer-like location, e.g. "body.enumValues[3].label" or "query.limit". */
  path: string;
  message: string;
}

/** A refusal with a known status. Thrown by handlers, rendered by the server. */
export class ApiError extends Error {
  constructor(
    readonly status: ErrorStatus,
    message?: string,
    readonly data?: Record<string, unknown>,
    /** Extra response headers (e.g. Retry-After). */
    readonly headers?: Record<string, string>,
  ) {
    // Stryker disable next-line LogicalOperator: a message is always given or defaulted, and its text is free (part 7)
    const text = message ?? (isKnownStatus(status) ? KNOWN_ERRORS[status] : OTHER_ERRORS[status]).message;
    // A refusal's stack is never shown, and capturing one cost the reference about 80 ms of CPU
    // in a run 25 ms away (seed 1, 2 s in all): none is captured.
    // Stryker disable next-line all: how long a stack is, nobody sees
    const limit = Error.stackTraceLimit;
    // Stryker disable next-line all: see above
    Error.stackTraceLimit = 0;
    super(text);
    // Stryker disable next-line all: see above
    Error.stackTraceLimit = limit;
    // Stryker disable next-line StringLiteral: the error's class name is internal
    this.name = 'ApiError';
  }
}

/**
 * A request refused as invalid: a broken bound, a wrong type, a bad query parameter or
 * Idempotency-Key. A 400, which a variant may answer 422 instead (Choices.status.invalid);
 * malformed JSON and refusals that depend on stored state stay plain 400s.
 */
export class InvalidRequest extends ApiError {
  constructor(message: string, issues?: readonly Issue[]) {
    // Stryker disable next-line ObjectLiteral: an error's data is optional and its content free (part 7)
    super(400, message, issues ? { issues } : undefined);
  }

  /** The same refusal with another status (for a variant's 422). */
  as(status: ErrorStatus): ApiError {
    return new ApiError(status, this.message, this.data, this.headers);
  }
}

/** Shorthands for the common refusals. */
// Stryker disable next-line ObjectLiteral: an error's data is optional and its content free (part 7)
export const badRequest = (message: string, issues?: readonly Issue[]): ApiError => new ApiError(400, message, issues ? { issues } : undefined);
export const invalid = (message: string, issues?: readonly Issue[]): ApiError => new InvalidRequest(message, issues);
export const unauthorized = (message?: string): ApiError => new ApiError(401, message);
export const forbidden = (message?: string): ApiError => new ApiError(403, message);
export const notFound = (message?: string): ApiError => new ApiError(404, message);
export const conflict = (message?: string): ApiError => new ApiError(409, message);

/** The envelope body of an error. */
export interface ErrorEnvelope {
  defined: boolean;
  code: string;
  status: number;
  message: string;
  data?: Record<string, unknown>;
}

/** Builds the error body for a status: `defined` true with the table's code, or false outside the table. */
export function envelope(status: ErrorStatus, message?: string, data?: Record<string, unknown>): ErrorEnvelope {
  const known = isKnownStatus(status) ? KNOWN_ERRORS[status] : OTHER_ERRORS[status];
  // Stryker disable next-line LogicalOperator: every refusal carries a message (ApiError defaults one), whose text is free (part 7)
  const body: ErrorEnvelope = { defined: isKnownStatus(status), code: known.code, status, message: message ?? known.message };
  // Stryker disable next-line all: data is optional and its content free (part 7); undefined is left out by JSON either way
  if (data !== undefined) body.data = data;
  return body;
}

/** 503 for a switched-off capability (500 under the capability-off-as-500 fault). */
export function capabilityOff(name: string, faults: { has(n: string): boolean }): ApiError {
  // Stryker disable next-line StringLiteral: message text is free (part 7)
  const message = `The ${name} capability is switched off for this workspace`;
  return faults.has('capability-off-as-500') ? new ApiError(500, message) : new ApiError(503, message);
}
