/**
 * Reads a response body within bounds, chunk by chunk as the transport hands it over: at most
 * `maxResponseBytes` from the wire (the rest is not read, the prefix is kept) and at most
 * `maxDecompressedBytes` after content decoding (gzip, deflate, br, streamed, so a
 * decompression bomb is stopped at the cap instead of being inflated in memory).
 */
import zlib from 'node:zlib';
import type { TransportError } from './exchange.ts';

export interface BodyLimits {
  maxResponseBytes: number;
  maxDecompressedBytes: number;
}

export interface BodyRead {
  /** Decoded body bytes actually obtained (possibly a prefix). */
  data: Buffer;
  /** Wire bytes read. */
  rawBytes: number;
  /** The wire body was cut at maxResponseBytes. */
  truncated: boolean;
  /** A bounded-reading or decoding problem (too-large, decompression). */
  error?: TransportError;
  /** The stream itself failed (abort, reset); the caller classifies it. */
  streamError?: unknown;
}

const SUPPORTED = new Set(['gzip', 'x-gzip', 'deflate', 'br']);

/** Content-Encoding values in the order they were applied, identity removed. */
export function parseContentEncoding(value: string | undefined): string[] {
  if (!value) return [];
  return value
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s.length > 0 && s !== 'identity');
}

/** A zlib or brotli decompression stream (both have flush()). */
type Decoder = zlib.Gunzip | zlib.Inflate | zlib.InflateRaw | zlib.BrotliDecompress;

function makeDecoder(encoding: string, firstBytes: Buffer | undefined): Decoder {
  if (encoding === 'br') return zlib.createBrotliDecompress();
  if (encoding === 'deflate') {
    // "deflate" is specified as zlib-wrapped, but some servers send raw deflate: sniff the header.
    const b0 = firstBytes?.[0];
    const b1 = firstBytes?.[1];
    const zlibWrapped = b0 !== undefined && b1 !== undefined && (b0 & 0x0f) === 8 && ((b0 << 8) | b1) % 31 === 0;
    return zlibWrapped || firstBytes === undefined ? zlib.createInflate() : zlib.createInflateRaw();
  }
  return zlib.createGunzip();
}

/**
 * Takes a body chunk by chunk as it comes off the wire (`write`), within `limits`, decoding
 * `contentEncoding` as it goes; `end` gives what was read. The caller stops reading once `write`
 * says no more is wanted (the cap reached, a decompression bomb, a body that cannot be decoded).
 */
export class BodySink {
  readonly #limits: BodyLimits;
  readonly #encodings: string[];
  readonly #unsupported: string | undefined;
  readonly #decode: boolean;
  readonly #raw: Buffer[] = [];
  #rawBytes = 0;
  #truncated = false;
  readonly #out: Buffer[] = [];
  #outBytes = 0;
  #bomb = false;
  #decodeError: Error | undefined;
  #chain: Decoder[] = [];
  #settled: Promise<void> = Promise.resolve();

  constructor(contentEncoding: string | undefined, limits: BodyLimits) {
    this.#limits = limits;
    this.#encodings = parseContentEncoding(contentEncoding);
    this.#unsupported = this.#encodings.find((e) => !SUPPORTED.has(e));
    this.#decode = this.#encodings.length > 0 && this.#unsupported === undefined;
  }

  /** Takes the next chunk; false once no more is wanted. */
  write(piece: Buffer): boolean {
    if (!this.wanted) return false;
    let chunk = piece;
    if (this.#rawBytes + chunk.length > this.#limits.maxResponseBytes) {
      chunk = chunk.subarray(0, this.#limits.maxResponseBytes - this.#rawBytes);
      this.#truncated = true;
    }
    this.#rawBytes += chunk.length;
    if (!this.#decode) {
      // undici hands over a chunk it does not reuse (its own request API keeps chunks in a stream).
      this.#raw.push(chunk);
      return this.wanted;
    }
    if (this.#chain.length === 0 && chunk.length > 0) this.#startChain(chunk);
    const head = this.#chain[0];
    // Unread input stays within the wire cap: a decoder's buffer holds at most maxResponseBytes.
    if (head && !head.destroyed && chunk.length > 0) head.write(chunk);
    return this.wanted;
  }

  /** Whether more of the body is wanted. */
  get wanted(): boolean {
    return !this.#truncated && !this.#bomb && this.#decodeError === undefined;
  }

  /** The body ended (`streamError`: it failed, or the caller stopped reading it); what was read. */
  async end(streamError?: unknown): Promise<BodyRead> {
    const limits = this.#limits;
    const encodings = this.#encodings;
    if (this.#decode && this.#chain.length > 0) {
      const head = this.#chain[0]!;
      if (this.#truncated || streamError !== undefined) {
        // Incomplete input: flush what the decoder has rather than fail on "unexpected end".
        await new Promise<void>((resolve) => (head.destroyed ? resolve() : head.flush(() => resolve())));
        await new Promise<void>((resolve) => setImmediate(resolve));
        for (const d of this.#chain) d.destroy();
      } else if (!this.#bomb && !this.#decodeError) {
        head.end();
        await this.#settled;
      }
    }
    const data = this.#decode ? Buffer.concat(this.#out) : Buffer.concat(this.#raw);
    let error: TransportError | undefined;
    if (this.#bomb) {
      error = {
        kind: 'decompression',
        message: `decoded body exceeds the cap of ${limits.maxDecompressedBytes} bytes (content-encoding ${encodings.join(', ')}); reading stopped`,
      };
    } else if (this.#decodeError && !this.#truncated && streamError === undefined) {
      error = { kind: 'decompression', message: `body could not be decoded (content-encoding ${encodings.join(', ')}): ${this.#decodeError.message}` };
    } else if (this.#truncated) {
      error = { kind: 'too-large', message: `body exceeds the response size cap of ${limits.maxResponseBytes} bytes; the first ${this.#rawBytes} bytes were kept` };
    } else if (this.#unsupported !== undefined && this.#rawBytes > 0) {
      error = { kind: 'decompression', message: `unsupported content-encoding "${this.#unsupported}"; the body is kept undecoded` };
    }
    const result: BodyRead = { data, rawBytes: this.#rawBytes, truncated: this.#truncated };
    if (error) result.error = error;
    if (streamError !== undefined) result.streamError = streamError;
    return result;
  }

  #startChain(first: Buffer): void {
    // Decoders are applied in the reverse order of the encodings.
    const chain = [...this.#encodings].reverse().map((e, i) => makeDecoder(e, i === 0 ? first : undefined));
    this.#chain = chain;
    for (let i = 0; i < chain.length - 1; i++) chain[i]!.pipe(chain[i + 1]!);
    const tail = chain[chain.length - 1]!;
    const max = this.#limits.maxDecompressedBytes;
    tail.on('data', (c: Buffer) => {
      if (this.#bomb) return;
      if (this.#outBytes + c.length > max) {
        this.#out.push(c.subarray(0, max - this.#outBytes));
        this.#outBytes = max;
        this.#bomb = true;
        for (const d of chain) d.destroy();
        return;
      }
      this.#out.push(c);
      this.#outBytes += c.length;
    });
    this.#settled = new Promise<void>((resolve) => {
      tail.once('end', () => resolve());
      tail.once('close', () => resolve());
      for (const d of chain) {
        d.once('error', (e: Error) => {
          this.#decodeError ??= e;
          resolve();
        });
      }
    });
  }
}
