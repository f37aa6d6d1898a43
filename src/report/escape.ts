/**
 * Escaping for every output format. Everything a report shows may have come from a server
 * (bodies, headers, messages quoting them), so no renderer writes a string without passing
 * it through the escaper of its format. HTML is built only through the `html` tagged
 * template: interpolated values are escaped unless they are already `SafeHtml`.
 */

/** A fragment of HTML that is known to be safe (built by `html` or `rawHtml`). */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

/** Values the `html` template accepts: strings and numbers are escaped, SafeHtml is kept, arrays are joined. */
export type HtmlValue = SafeHtml | string | number | boolean | null | undefined | readonly HtmlValue[];

/**
 * Escapes text for HTML element content and double- or single-quoted attribute values.
 * Control characters (which HTML cannot show) are written as visible "\u001b" escapes.
 */
export function escapeHtml(text: string): string {
  return text
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

function htmlOf(value: HtmlValue): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map((v: HtmlValue) => htmlOf(v)).join('');
  return escapeHtml(String(value));
}

/** Tagged template: `html\`<td>${untrusted}</td>\``. The literal parts are trusted, values are escaped. */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let out = strings[0] ?? '';
  values.forEach((v, i) => {
    out += htmlOf(v) + (strings[i + 1] ?? '');
  });
  return new SafeHtml(out);
}

/** Marks project-authored markup (inline CSS/JS assets) as safe. Never call it with data. */
export function rawHtml(trusted: string): SafeHtml {
  return new SafeHtml(trusted);
}

// Characters XML 1.0 does not allow at all (C0 controls other than tab, LF, CR; lone surrogates; U+FFFE/F).
const XML_INVALID = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Escapes text for XML content and attributes, dropping characters XML cannot carry. */
export function escapeXml(text: string): string {
  return text.replace(XML_INVALID, '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

/**
 * Makes untrusted text safe for a terminal: control characters (ANSI escapes, carriage
 * returns, bells...) are shown as visible escapes instead of being interpreted.
 * Newlines and tabs become spaces unless `keepNewlines`.
 */
export function sanitizeTerminal(text: string, keepNewlines = false): string {
  return text.replace(/[\u0000-\u001F\u007F-\u009F\u2028\u2029]/g, (c) => {
    if (c === '\n') return keepNewlines ? '\n' : ' ';
    if (c === '\t') return ' ';
    return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}

/**
 * Escapes untrusted text for one line of GitHub-flavoured Markdown (tables included):
 * HTML special characters become entities, inline Markdown syntax characters (emphasis, code,
 * links, table pipes) are backslash-escaped, line breaks and control characters become spaces.
 */
export function escapeMarkdown(text: string): string {
  return text
    .replace(/[\u0000-\u001F\u007F-\u009F\u2028\u2029]/g, ' ')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/([\\`*_{}[\]()!|~])/g, '\\$1');
}

/** Shortens text to at most `max` characters, marking the cut. */
export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`;
}

/**
 * A URL fit for an href: http(s), file (the seed document shipped beside the suite) and
 * relative URLs pass, anything else (javascript:, data:...) becomes "#". The result still needs HTML escaping (the `html` template does it).
 */
export function safeHref(url: string): string {
  // Browsers ignore tabs, newlines and leading controls in URLs ("java\nscript:"), so look without them.
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(url.replace(/[\u0000-\u0020]/g, ''));
  if (scheme && !/^(https?|file)$/i.test(scheme[1]!)) return '#';
  return url;
}
