/**
 * What a check asks of the API: one request (ApiRequest) and the client that sends it
 * (ApiClient, implemented by client.ts). Part of the HTTP layer, so the client, the target and
 * the engine share it without the HTTP layer reaching up into the engine.
 */
import type { KeyHandle } from '../vocabulary.ts';
import type { Exchange } from './exchange.ts';

/** One API request. `path` is relative to {base_url}/api/v1 and starts with "/". */
export interface ApiRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE' | 'HEAD' | 'OPTIONS';
  path: string;
  /** Query as an object (arrays repeat the key) or a raw, already-encoded string (no "?"). */
  query?: Record<string, string | number | boolean | readonly (string | number)[] | undefined> | string;
  headers?: Record<string, string>;
  /** JSON body (serialised by the client). */
  body?: unknown;
  /** Raw body bytes/text, sent as is (for malformed JSON and wrong content types). */
  rawBody?: string | Uint8Array;
  /** Credential: a cast key, or null for none. */
  key: KeyHandle | null;
  /** How the key is sent. Default "bearer". */
  auth?: 'bearer' | 'x-api-key';
  idempotencyKey?: string;
  /**
   * Retry a 429 within the run's bounds (Retry-After, retry budget). Default true; false
   * returns the first 429, for checks that need to see it.
   */
  retry429?: boolean;
}

export interface ApiClient {
  /** Sends a request; never throws for target misbehaviour: transport problems are in Exchange.error. */
  send(req: ApiRequest): Promise<Exchange>;
}
