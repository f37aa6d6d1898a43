/**
 * Looks for a secret anywhere a run wrote: the literal (any case: header names come back
 * lower-cased), URL-encoded, JSON \u-escaped, and base64 / base64url at every 3-byte
 * alignment (a secret inside "Bearer <secret>" or "user:<secret>" is base64-encoded shifted
 * by the prefix, so only the inner characters it fully determines are searched).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** One way a secret can show up, and its name for messages. */
export interface LeakForm {
  name: string;
  text: string;
  caseInsensitive?: boolean;
}

/** The searchable forms of `secret`. */
export function leakForms(secret: string): LeakForm[] {
  const bytes = Buffer.from(secret, 'utf8');
  const forms: LeakForm[] = [
    { name: 'literal', text: secret, caseInsensitive: true },
    { name: 'url-encoded', text: encodeURIComponent(secret) },
    { name: 'unicode-escaped', text: [...secret].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('') },
  ];
  for (const k of [0, 1, 2]) {
    const shifted = Buffer.concat([Buffer.alloc(k, 0x20), bytes]);
    const end = 4 * Math.floor((k + bytes.length) / 3);
    const start = k === 0 ? 0 : 4;
    for (const [name, enc] of [
      ['base64', 'base64'],
      ['base64url', 'base64url'],
    ] as const) {
      const text = shifted.toString(enc).slice(start, end);
      if (text.length >= 16) forms.push({ name: `${name}@${k}`, text });
    }
  }
  return forms;
}

/** Where a secret was found: "<where>: <form>". Empty when nowhere. */
export function findLeaks(texts: Record<string, string>, secrets: readonly string[]): string[] {
  const hits: string[] = [];
  // Lower-cased once: these texts can be megabytes, and the targets share this event loop.
  const lowered = Object.entries(texts).map(([where, text]) => [where, text, text.toLowerCase()] as const);
  for (const secret of secrets) {
    for (const form of leakForms(secret)) {
      const needle = form.caseInsensitive ? form.text.toLowerCase() : form.text;
      for (const [where, text, lower] of lowered) {
        if ((form.caseInsensitive ? lower : text).includes(needle)) hits.push(`${where}: ${form.name} form of a secret (…${secret.slice(-4)})`);
      }
    }
  }
  return hits;
}

/** Every file under `dir`, recursively, as text keyed by path. */
export function readTree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out[p] = readFileSync(p, 'latin1');
    }
  };
  walk(dir);
  return out;
}
