/**
 * The rule register (specs/rules.yaml): one entry per rule of the API document and of the
 * test-control protocol's endpoint table, by its place, naming the clauses that encode it or
 * saying why none does. `documentPlaces` derives from a document's Markdown the places that
 * must have an entry, so a rule added to the document and missing from the register is found
 * (test/catalog/rules.test.ts).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseDocument } from 'yaml';
import { z } from 'zod';

export const DEFAULT_RULES_PATH = fileURLToPath(new URL('../../specs/rules.yaml', import.meta.url));

/**
 * What a rule governs, besides endpoints (`GET /definitions`, `control:POST /keys/{keyId}/revoke`,
 * spelt as specs/openapi.yaml and specs/control-openapi.yaml spell them) and catalog operations
 * (`op:graph.apply_update`).
 */
export const GOVERNED_KINDS = [
  'every-endpoint', // every call of the API
  'every-read', // every call that reads (GET, POST /query, trace and stored-data reads)
  'every-billed-call', // every 2xx call not on the free list of part 8
  'every-list', // every collection listing (items, nextCursor)
  'every-definition-answer', // every Definition the API returns
  'every-definition-write', // create, update, archive, merge-value
  'every-idempotent-write', // the five endpoints of 4.1
  'every-decision-trace', // the decision_trace body object and its sub-objects
  'every-error', // every error body
  'every-key', // API keys: their form, binding and secrets
  'accounts', // stored collections and records the document names
  'people',
  'icps',
  'saved-matches',
  'lookalikes',
  'context-areas',
  'operation-receipts',
  'compute-runs',
  'trace-records',
  'source-text', // original source text read through a source reader
  'customer-crm', // the customer's CRM, outside the API
  'usage-ledger', // the workspace usage balance and its entries
  'api-description', // the published OpenAPI description and version label
  'control-protocol', // the test-control protocol itself
] as const;

const ENDPOINT = /^(control:)?(GET|POST|PUT|PATCH|DELETE) \/\S*$/;
const OPERATION = /^op:[a-z_]+(\.[a-z_]+)+$/;

/** A place: a derived one (`<section>.<kind>.<slug>`) or a hand-made one (`<section>.text.<slug>`). */
const PLACE = /^(intro|control|\d+(\.\d+)*)\.[a-z0-9-]+\.[a-z0-9-]+$/;

export const RuleEntrySchema = z
  .object({
    /** Where the rule is: derived by `documentPlaces`, or `<section>.text.<slug>` for a paragraph. */
    place: z.string().regex(PLACE, 'a section, a kind and a slug, e.g. 5.rule.8 or 4.1.text.replay'),
    /** The rule in a few words of our own (never the document's sentence). */
    summary: z.string().min(1),
    /** What the rule applies to: endpoints, op:<operation>, or one of GOVERNED_KINDS. */
    governs: z
      .array(z.string().refine((g) => ENDPOINT.test(g) || OPERATION.test(g) || (GOVERNED_KINDS as readonly string[]).includes(g), 'an endpoint ("GET /me"), op:<name> or a governed kind'))
      .min(1),
    /** Clause ids of specs/clauses.yaml that encode the rule. */
    clauses: z
      .array(z.string().regex(/^[A-Z]+-\d{3}$/))
      .min(1)
      .optional(),
    /** Why no clause encodes the rule (not normative, not observable by a client...). */
    unencoded: z.string().min(1).optional(),
  })
  .strict();

export type RuleEntry = z.infer<typeof RuleEntrySchema>;

export interface RuleRegister {
  readonly entries: readonly RuleEntry[];
  readonly path: string;
}

export class RulesError extends Error {
  constructor(path: string, place: string, problem: string) {
    super(`${path}: ${place}: ${problem}`);
    this.name = 'RulesError';
  }
}

const FileSchema = z.object({ version: z.literal(1), rules: z.array(z.unknown()).min(1) }).strict();

/** Reads and validates the register's shape. What it covers is `checkRegister`'s business. */
export function loadRules(path: string = DEFAULT_RULES_PATH): RuleRegister {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new RulesError(path, 'file', `cannot be read (${(e as Error).message})`);
  }
  return parseRules(text, path);
}

/** Parses register text; exported for tests of bad input. */
export function parseRules(text: string, path: string): RuleRegister {
  const doc = parseDocument(text, { prettyErrors: true });
  if (doc.errors.length > 0) {
    const line = doc.errors[0]!.linePos?.[0];
    throw new RulesError(path, line ? `line ${line.line}, column ${line.col}` : 'YAML', doc.errors[0]!.message.split('\n')[0]!);
  }
  const top = FileSchema.safeParse(doc.toJS());
  if (!top.success) throw new RulesError(path, 'top level', describe(top.error));
  const entries = top.data.rules.map((raw, index) => {
    const hint = typeof raw === 'object' && raw && 'place' in raw ? ` (${String((raw as { place: unknown }).place)})` : '';
    const parsed = RuleEntrySchema.safeParse(raw);
    if (!parsed.success) throw new RulesError(path, `rules[${index}]${hint}`, describe(parsed.error));
    return parsed.data;
  });
  return { entries, path };
}

function describe(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`).join('; ');
}

/** Lower case, every run of characters other than a-z and 0-9 one "-", none at the ends. */
export function placeSlug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/**
 * The places of a document that must have an entry, in document order:
 *
 * - every numbered-list item `N. ...`: `<section>.<kind>.<N>`;
 * - every table body row: `<section>.<kind>.<slug of its first cell>`.
 *
 * `<section>` is the number of the nearest numbered heading above (`### 4.4 POST /definitions`
 * → `4.4`, `## 7. Errors` → `7`), or `options.section` for every place when given (a document
 * without numbered headings, such as the control protocol: `control`).
 *
 * `<kind>` comes from a lead-in: the line directly above the list or table (blank lines
 * skipped) when it is a paragraph ending in ":" ("Factor object:", "Billing:"). Then the kind is
 * the slug of its first word, "rules" read as "rule". Without a lead-in, a list's kind is `rule`
 * and a table's the slug of the first word of its first header cell ("Body field" → `body`).
 *
 * A place derived twice means this scheme cannot tell two rules apart: that throws.
 */
export function documentPlaces(markdown: string, options: { section?: string } = {}): string[] {
  const places: string[] = [];
  const seen = new Set<string>();
  let heading: string | undefined;
  let previous = ''; // the last non-blank line before the current one
  let inFence = false;
  let table: { kind: string; row: number } | undefined;
  let list: string | undefined; // the kind of the numbered list being read
  const add = (place: string, line: number): void => {
    if (seen.has(place)) throw new Error(`documentPlaces: line ${line}: place ${place} derived twice`);
    seen.add(place);
    places.push(place);
  };
  const section = (line: number): string => {
    const s = options.section ?? heading;
    if (s === undefined) throw new Error(`documentPlaces: line ${line}: a list item or table row before any numbered heading`);
    return s;
  };
  markdown.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trimEnd();
    const lineNo = index + 1;
    if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
    if (inFence || line.trim() === '') return;
    const h = /^#{1,6}\s+(.*)$/.exec(line);
    if (h) {
      const num = /^(\d+(?:\.\d+)*)\.?\s/.exec(h[1]!);
      if (num) heading = num[1]!;
      table = undefined;
      list = undefined;
    } else if (line.startsWith('|')) {
      if (!table) {
        table = { kind: leadInKind(previous) ?? (placeSlug(firstCell(line).split(/\s+/)[0]!) || 'table'), row: 0 };
      } else if (table.row === 0 && /^\|[\s:|-]+$/.test(line)) {
        table.row = 1; // the separator under the header
      } else {
        table.row += 1;
        add(`${section(lineNo)}.${table.kind}.${placeSlug(firstCell(line))}`, lineNo);
      }
    } else {
      table = undefined;
      const item = /^(\d+)\.\s/.exec(line);
      if (item) {
        list ??= leadInKind(previous) ?? 'rule';
        add(`${section(lineNo)}.${list}.${item[1]}`, lineNo);
      } else if (!/^\s/.test(line) && !/^[-*+]\s/.test(line)) {
        list = undefined; // a paragraph ends the list; a table in between does not
      }
    }
    previous = line;
  });
  return places;
}

/** The kind a lead-in paragraph ("Factor object:") gives the list or table under it. */
function leadInKind(line: string): string | undefined {
  if (!line.endsWith(':') || /^(#|\||\d+\.\s|[-*+]\s)/.test(line)) return undefined;
  const kind = placeSlug(line.split(/\s+/)[0]!);
  return kind === 'rules' ? 'rule' : kind || undefined;
}

function firstCell(row: string): string {
  return (row.replace(/^\|/, '').split(/(?<!\\)\|/)[0] ?? '').trim();
}

/** What is wrong with a register, against the places it must hold and the catalog's clause ids. */
export interface RegisterProblems {
  /** Derived places with no entry. */
  missing: string[];
  /** Entries whose place is neither derived nor hand-made (`<section>.text.<slug>`): the document lost that rule. */
  stale: string[];
  /** Places with more than one entry. */
  repeated: string[];
  /** `place: id` for each clause id an entry names that the catalog does not hold. */
  unknownClauses: string[];
  /** Catalog clause ids no entry names. */
  unplacedClauses: string[];
  /** Entries with neither clauses nor an unencoded reason, or with both. */
  undecided: string[];
}

/** Compares a register with the derived places and the catalog. Empty lists: complete. */
export function checkRegister(entries: readonly RuleEntry[], derived: readonly string[], clauseIds: readonly string[]): RegisterProblems {
  const required = new Set(derived);
  const counts = new Map<string, number>();
  for (const e of entries) counts.set(e.place, (counts.get(e.place) ?? 0) + 1);
  const catalog = new Set(clauseIds);
  const named = new Set(entries.flatMap((e) => e.clauses ?? []));
  return {
    missing: derived.filter((p) => !counts.has(p)),
    stale: entries.filter((e) => !required.has(e.place) && !/\.text\.[a-z0-9-]+$/.test(e.place)).map((e) => e.place),
    repeated: [...counts].filter(([, n]) => n > 1).map(([p]) => p),
    unknownClauses: entries.flatMap((e) => (e.clauses ?? []).filter((id) => !catalog.has(id)).map((id) => `${e.place}: ${id}`)),
    unplacedClauses: clauseIds.filter((id) => !named.has(id)),
    undecided: entries.filter((e) => (e.clauses === undefined) === (e.unencoded === undefined)).map((e) => e.place),
  };
}

/** Lower-case words of a text (letters, digits and underscores). */
function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
}

/** Each run of `n` consecutive words that `text` shares with `source` (case-insensitive). */
export function copiedRuns(text: string, source: string, n = 8): string[] {
  const grams = new Set<string>();
  const src = words(source);
  for (let i = 0; i + n <= src.length; i++) grams.add(src.slice(i, i + n).join(' '));
  const own = words(text);
  const runs: string[] = [];
  for (let i = 0; i + n <= own.length; i++) {
    const gram = own.slice(i, i + n).join(' ');
    if (grams.has(gram)) runs.push(gram);
  }
  return runs;
}
