/**
 * Defence in depth for the configuration echoed into reports. The config module already
 * redacts; this pass makes sure that even an unredacted object handed to the report
 * builder cannot put a credential on disk: any string under a secret-looking key (and every
 * string under a `keys` object) is replaced by a "[REDACTED:<key>]" marker. Values that
 * already are markers are kept.
 */

const SECRET_KEY = /secret|token|password|passwd|passphrase|authorization|credential|cookie|private|api[-_]?key|^keys?$/i;
const MARKER = /^\[REDACTED(:[^\]]*)?\]$/;

/** A deep copy of `config` with every secret-looking string value replaced by a marker. */
export function redactConfig(config: Record<string, unknown>): Record<string, unknown> {
  return redactValue(config, false, '') as Record<string, unknown>;
}

function redactValue(value: unknown, secret: boolean, key: string): unknown {
  if (typeof value === 'string') return secret && !MARKER.test(value) ? `[REDACTED:${key}]` : value;
  if (Array.isArray(value)) return value.map((v) => redactValue(v, secret, key));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      out[k] = redactValue(v, secret || SECRET_KEY.test(k), k);
    }
    return out;
  }
  // Numbers, booleans, null; functions and other non-JSON values are dropped.
  return typeof value === 'function' || typeof value === 'symbol' || typeof value === 'bigint' ? undefined : value;
}
