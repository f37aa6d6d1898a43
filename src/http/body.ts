/**
 * Reads a response body within bounds: at most `maxResponseBytes` from the wire (the rest is
 * not read, the prefix is kept) and at most `maxDecompressedBytes` after content decoding
 * (gzip, deflate, br, streamed, so a decompression bomb is stopped at the cap instead of
 * being inflated in memory).
 */
import { once } from 'node:events';
import type { Readable } from 'node:stream';
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

/** Reads `body` within `limits`, decoding `contentEncoding`. Never throws. */
export async function readBody(body: Readable, contentEncoding: string | undefined, limits: BodyLimits): Promise<BodyRead> {
  const encodings = parseContentEncoding(contentEncoding);
  const unsupported = encodings.find((e) => !SUPPORTED.has(e));
  const decode = encodings.length > 0 && unsupported === undefined;

  const raw: Buffer[] = [];
  let rawBytes = 0;
  let truncated = false;
  let streamError: unknown;

  const out: Buffer[] = [];
  let outBytes = 0;
  let bomb = false;
  let decodeError: Error | undefined;
  let chain: Decoder[] = [];
  let settled: Promise<void> = Promise.resolve();

  const startChain = (first: Buffer): void => {
    // Decoders are applied in the reverse order of the encodings.
    chain = [...encodings].reverse().map((e, i) => makeDecoder(e, i === 0 ? first : undefined));
    for (let i = 0; i < chain.length - 1; i++) chain[i]!.pipe(chain[i + 1]!);
    const tail = chain[chain.length - 1]!;
    tail.on('data', (c: Buffer) => {
      if (bomb) return;
      if (outBytes + c.length > limits.maxDecompressedBytes) {
        out.push(c.subarray(0, limits.maxDecompressedBytes - outBytes));
        outBytes = limits.maxDecompressedBytes;
        bomb = true;
        for (const d of chain) d.destroy();
        return;
      }
      out.push(c);
      outBytes += c.length;
    });
    settled = new Promise<void>((resolve) => {
      tail.once('end', () => resolve());
      tail.once('close', () => resolve());
      for (const d of chain) {
        d.once('error', (e: Error) => {
          decodeError ??= e;
          resolve();
        });
      }
    });
  };

  try {
    for await (const piece of body as AsyncIterable<Buffer>) {
      let chunk = piece;
      if (rawBytes + chunk.length > limits.maxResponseBytes) {
        chunk = chunk.subarray(0, limits.maxResponseBytes - rawBytes);
        truncated = true;
      }
      rawBytes += chunk.length;
      if (decode) {
        if (chain.length === 0 && chunk.length > 0) startChain(chunk);
        const head = chain[0];
        if (head && !head.destroyed && chunk.length > 0 && !head.write(chunk)) {
          await Promise.race([once(head, 'drain'), settled]);
        }
        if (bomb || decodeError) break;
      } else {
        raw.push(chunk);
      }
      if (truncated) break;
    }
  } catch (e) {
    streamError = e;
  }
  // Stop reading whatever the server still sends (cap reached, bomb, decode error).
  if (truncated || bomb || decodeError || streamError) body.destroy();

  if (decode && chain.length > 0) {
    const head = chain[0]!;
    if (truncated || streamError) {
      // Incomplete input: flush what the decoder has rather than fail on "unexpected end".
      await new Promise<void>((resolve) => (head.destroyed ? resolve() : head.flush(() => resolve())));
      await new Promise<void>((resolve) => setImmediate(resolve));
      for (const d of chain) d.destroy();
    } else if (!bomb && !decodeError) {
      head.end();
      await settled;
    }
  }

  const data = decode ? Buffer.concat(out) : Buffer.concat(raw);
  let error: TransportError | undefined;
  if (bomb) {
    error = {
      kind: 'decompression',
      message: `decoded body exceeds the cap of ${limits.maxDecompressedBytes} bytes (content-encoding ${encodings.join(', ')}); reading stopped`,
    };
  } else if (decodeError && !truncated && !streamError) {
    error = { kind: 'decompression', message: `body could not be decoded (content-encoding ${encodings.join(', ')}): ${decodeError.message}` };
  } else if (truncated) {
    error = { kind: 'too-large', message: `body exceeds the response size cap of ${limits.maxResponseBytes} bytes; the first ${rawBytes} bytes were kept` };
  } else if (unsupported !== undefined && rawBytes > 0) {
    error = { kind: 'decompression', message: `unsupported content-encoding "${unsupported}"; the body is kept undecoded` };
  }
  const result: BodyRead = { data, rawBytes, truncated };
  if (error) result.error = error;
  if (streamError !== undefined) result.streamError = streamError;
  return result;
}
