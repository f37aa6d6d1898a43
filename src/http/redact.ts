/**
 * Redaction at capture time. Every secret the run knows (API keys, the control token) is
 * registered once with a label; every captured header, URL, request body and response text
 * passes through `redact()` before it is stored, so nothing downstream can leak a secret.
 */

/** Secrets shorter than this are not searched for inside text (they would shred unrelated text). */
const MIN_SEARCHABLE_LENGTH = 6;

/** Redacted header names a registry keeps (see SecretRegistry's #names). */
const MAX_NAMES_KEPT = 512;

/** Header names whose values are always redacted, whether or not the value is a known secret. */
export const CREDENTIAL_HEADERS: ReadonlySet<string> = new Set(['authorization', 'x-api-key', 'proxy-authorization']);

/** Labels are restricted so a redaction marker never breaks JSON, URLs or shell quoting. */
export function normaliseLabel(label: string): string {
  const cleaned = label.replace(/[^A-Za-z0-9_-]+/g, '_').replace(/^_+|_+$/g, '');
  return cleaned.length > 0 ? cleaned : 'secret';
}

/** The marker that replaces a secret in captured text. */
export function redactionMarker(label: string): string {
  return `[REDACTED:${normaliseLabel(label)}]`;
}

/** Shortest shifted-base64 form searched for: shorter ones would match unrelated base64 text. */
const MIN_SHIFTED_FORM = 12;

/** Base64 and base64url of `secret` preceded by 1 and 2 bytes, without the edge characters the neighbours decide. */
function shiftedBase64(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const forms: string[] = [];
  for (const shift of [1, 2]) {
    const shifted = Buffer.concat([Buffer.alloc(shift), bytes]);
    const end = 4 * Math.floor((shift + bytes.length) / 3);
    for (const enc of ['base64', 'base64url'] as const) {
      const inner = shifted.toString(enc).slice(4, end);
      if (inner.length >= MIN_SHIFTED_FORM) forms.push(inner);
    }
  }
  return forms;
}

/** Matches any redaction marker; used by curl rendering to turn markers into env-var references. */
export const REDACTION_MARKER_RE = /\[REDACTED:([A-Za-z0-9_-]+)\]/g;

interface Entry {
  label: string;
  marker: string;
  /** The secret and its encoded forms, longest first. */
  forms: string[];
  /** The same, lower-cased (header names arrive lower-cased). */
  lowerForms: string[];
}

/**
 * The run's registry of secrets. Adding a known secret again under another label relabels it
 * (the control client registers a new key's secret the moment it arrives; the session then
 * names it after its cast role, which is what curl env references use).
 */
export class SecretRegistry {
  readonly #entries = new Map<string, Entry>();
  /** Searchable entries, longest secret first; rebuilt after `add`. */
  #ordered: Entry[] | undefined;
  /** The patterns over every form of every searchable secret (see #patterns); rebuilt after a new secret. */
  #compiled: { any: RegExp; every: RegExp } | undefined;
  /** The patterns with each form's marker, as #patterns hands them out; rebuilt after a new secret or a new label. */
  #current: { any: RegExp; every: RegExp; markers: Map<string, string> } | undefined;
  /**
   * Header names already redacted (#redactName), cleared with the markers: a response's header
   * names are the same few on every answer, and each would otherwise be searched for every form
   * of every secret again.
   */
  readonly #names = new Map<string, string>();

  /** Registers a secret under a label (e.g. the cast name "admin"). Empty secrets are ignored. */
  add(secret: string, label: string): void {
    if (!secret) return;
    const known = this.#entries.get(secret);
    if (known) {
      // The API client registers a request's key before each request: the same label changes nothing.
      const relabel = normaliseLabel(label);
      if (relabel === known.label) return;
      // A new label only: the forms, their order and the quick pattern stand.
      known.label = relabel;
      known.marker = redactionMarker(label);
      this.#current = undefined;
      this.#names.clear();
      return;
    }
    this.#ordered = undefined;
    this.#compiled = undefined;
    this.#current = undefined;
    this.#names.clear();
    const forms = new Set<string>([secret]);
    // The same secret may come back URL-encoded (echoed query parameters) or base64-encoded
    // (Basic auth, tokens embedded in JSON); each of these forms is a leak too.
    forms.add(encodeURIComponent(secret));
    forms.add(encodeURIComponent(secret).replace(/%20/g, '+'));
    const b64 = Buffer.from(secret, 'utf8').toString('base64');
    forms.add(b64);
    forms.add(b64.replace(/=+$/, ''));
    forms.add(Buffer.from(secret, 'utf8').toString('base64url'));
    // Inside a longer base64 value ("Bearer <secret>", "user:<secret>") the secret is shifted
    // by one or two bytes: only the characters it fully determines are searchable.
    for (const form of shiftedBase64(secret)) forms.add(form);
    forms.add(JSON.stringify(secret).slice(1, -1));
    const ordered = [...forms].filter((f) => f.length > 0).sort((a, b) => b.length - a.length);
    this.#entries.set(secret, { label: normaliseLabel(label), marker: redactionMarker(label), forms: ordered, lowerForms: ordered.map((f) => f.toLowerCase()) });
  }

  /** The label of a registered secret, if any. */
  labelOf(secret: string): string | undefined {
    return this.#entries.get(secret)?.label;
  }

  /** Number of registered secrets (for tests and diagnostics; never the secrets themselves). */
  get size(): number {
    return this.#entries.size;
  }

  /** Searchable entries, longest secret first (so a secret that contains another is replaced whole). */
  #searchable() {
    this.#ordered ??= [...this.#entries.entries()]
      .filter(([secret]) => secret.length >= MIN_SEARCHABLE_LENGTH)
      .sort((a, b) => b[0].length - a[0].length)
      .map(([, entry]) => entry);
    return this.#ordered;
  }

  /**
   * Every form of every searchable secret, the longest secret's forms first, each mapped to its
   * marker, as two patterns: `any` finds whether one occurs (a quick test before the
   * replacements), `every` (global, of lookaheads, so that it finds occurrences that overlap)
   * where each does. No forms: patterns that never match.
   */
  #patterns(): { any: RegExp; every: RegExp; markers: Map<string, string> } {
    // Asked for on every redaction: built once per change of the secrets or their labels.
    if (this.#current) return this.#current;
    const markers = new Map<string, string>();
    for (const e of this.#searchable()) for (const f of e.forms) if (!markers.has(f)) markers.set(f, e.marker);
    // A relabel keeps the secrets, their forms and their order: the patterns stand, only the markers change.
    if (!this.#compiled) {
      const alternatives = [...markers.keys()].map((f) => f.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|');
      this.#compiled = markers.size === 0 ? { any: /(?!)/, every: /(?!)/g } : { any: new RegExp(alternatives), every: new RegExp(`(?=(${alternatives}))`, 'g') };
    }
    this.#current = { ...this.#compiled, markers };
    return this.#current;
  }

  /** Whether `text` may hold a form of a searchable secret (never false when it does). */
  #mayHold(text: string): boolean {
    return this.#patterns().any.test(text);
  }

  /** Replaces every registered secret (in all its forms) with its marker. */
  redact(text: string): string {
    if (!text) return text;
    // A secret too short to search for is redacted only where it is the whole text.
    const whole = text.length < MIN_SEARCHABLE_LENGTH ? this.#entries.get(text) : undefined;
    if (whole) return whole.marker;
    if (!this.#mayHold(text)) return text;
    // One pass over the text (a check's result with its scenario can be megabytes, and a lane
    // registers every key its checks create): where a form starts, the first to match in the
    // order of the replacements below. Occurrences apart from each other are replaced as the
    // form-by-form replacement would; where two overlap, that replacement decides.
    const patterns = this.#patterns();
    const found: { at: number; form: string }[] = [];
    for (const m of text.matchAll(patterns.every)) found.push({ at: m.index, form: m[1]! });
    const apart = found.every((f, i) => i === 0 || found[i - 1]!.at + found[i - 1]!.form.length <= f.at);
    let out = text;
    if (apart) {
      out = '';
      let from = 0;
      for (const f of found) {
        out += text.slice(from, f.at) + patterns.markers.get(f.form)!;
        from = f.at + f.form.length;
      }
      out += text.slice(from);
      // A marker next to the text around it can spell a form anew (a target chooses the secrets
      // it issues): then the replacement below goes on from here, as it would have.
      if (!this.#mayHold(out)) return out;
    }
    for (const entry of this.#searchable()) {
      for (const form of entry.forms) {
        if (out.includes(form)) out = out.split(form).join(entry.marker);
      }
    }
    return out;
  }

  /**
   * Redacts one header value. Credential headers are always redacted: a known secret keeps
   * its label, anything else is labelled after the header, and a "Bearer"/"Basic" scheme
   * is kept so the exchange still shows how the key was sent.
   */
  redactHeader(name: string, value: string): string {
    const lower = name.toLowerCase();
    if (!CREDENTIAL_HEADERS.has(lower)) return this.redact(value);
    const m = /^(\s*[A-Za-z][A-Za-z0-9._~+/-]*\s+)(.*)$/s.exec(value);
    const scheme = lower !== 'x-api-key' && m ? m[1]! : '';
    const credential = scheme ? m![2]! : value;
    const label = this.#entries.get(credential.trim())?.label;
    if (label) return scheme + redactionMarker(label);
    if (credential.length === 0) return value;
    return scheme + redactionMarker(lower);
  }

  /**
   * Redacts every value of a header record. Names are lower-cased and redacted too (a server
   * can send a header named after the key), matching secrets case-insensitively since header
   * names arrive lower-cased.
   */
  redactHeaders(headers: Record<string, string>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) out[this.#redactName(name.toLowerCase())] = this.redactHeader(name, value);
    return out;
  }

  /** Case-insensitive redaction of a (lower-cased) header name. */
  #redactName(name: string): string {
    const known = this.#names.get(name);
    if (known !== undefined) return known;
    let out = name;
    for (const entry of this.#searchable()) {
      for (const lower of entry.lowerForms) {
        if (out.includes(lower)) out = out.split(lower).join(entry.marker);
      }
    }
    // Bounded: a target that sends a new name on every answer cannot grow it past this.
    if (this.#names.size < MAX_NAMES_KEPT) this.#names.set(name, out);
    return out;
  }
}
