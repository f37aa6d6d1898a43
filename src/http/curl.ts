/**
 * "Reproduce with": a copy-pasteable curl command for a captured exchange. Secrets appear
 * only as environment-variable references ($WGC_KEY_<LABEL>), never literally: the exchange
 * is already redacted, and each redaction marker becomes the matching reference.
 */
import type { Exchange } from './exchange.ts';
import { REDACTION_MARKER_RE } from './redact.ts';

/** Headers curl sets itself or that would mislead when replayed. */
const SKIPPED_HEADERS = new Set(['content-length', 'host', 'connection', 'transfer-encoding']);

/** The env var a redaction label maps to, e.g. "admin" → "WGC_KEY_ADMIN". */
export function secretEnvVar(label: string): string {
  return `WGC_KEY_${label.toUpperCase().replace(/[^A-Z0-9]+/g, '_')}`;
}

/**
 * Quotes for a POSIX shell. Redaction markers become "${WGC_KEY_X}" inside double quotes so
 * the shell expands them; everything else is single-quoted and so taken literally.
 */
export function shellQuote(text: string): string {
  const parts: string[] = [];
  let last = 0;
  for (const m of text.matchAll(REDACTION_MARKER_RE)) {
    if (m.index! > last) parts.push(singleQuote(text.slice(last, m.index)));
    parts.push(`"\${${secretEnvVar(m[1]!)}}"`);
    last = m.index! + m[0].length;
  }
  if (last < text.length || parts.length === 0) parts.push(singleQuote(text.slice(last)));
  return parts.join('');
}

function singleQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The curl command reproducing the exchange's request (one line per option, backslash-continued). */
export function toCurl(exchange: Exchange): string {
  const { request } = exchange;
  const lines = [`curl -sS -i -X ${request.method} ${shellQuote(request.url)}`];
  for (const [name, value] of Object.entries(request.headers)) {
    if (SKIPPED_HEADERS.has(name)) continue;
    lines.push(`-H ${shellQuote(`${name}: ${value}`)}`);
  }
  if (request.body !== undefined) lines.push(`--data-binary ${shellQuote(request.body)}`);
  return lines.join(' \\\n  ');
}

/** Env vars a curl command for this exchange expects (for "export WGC_KEY_...=" hints). */
export function curlEnvVars(exchange: Exchange): string[] {
  const { request } = exchange;
  const text = [request.url, ...Object.values(request.headers), request.body ?? ''].join('\n');
  return [...new Set([...text.matchAll(REDACTION_MARKER_RE)].map((m) => secretEnvVar(m[1]!)))];
}
