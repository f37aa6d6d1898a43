/**
 * Turns ajv errors into readable, serialisable issues: where (a JSON pointer into the
 * value), which keyword, what was expected and what was received. Failure reports show
 * these to people, so they name the bound ("at most 80 characters"), not ajv internals.
 */
import type { ErrorObject } from 'ajv';
import { escapePointerSegment, pointerSegments } from './source.ts';

/** One way a value fails a schema. */
export interface ValidationIssue {
  /** JSON pointer into the validated value, e.g. "/items/0/slug" ("" is the value itself). */
  path: string;
  /** The JSON Schema keyword that failed (maxLength, required, type, ...), or "status". */
  keyword: string;
  expected: string;
  received: string;
  /** "<path>: expected <expected>, received <received>". */
  message: string;
}

/** Builds an issue from its parts (also used for failures that are not ajv's, e.g. an undeclared status). */
export function issue(path: string, keyword: string, expected: string, received: string): ValidationIssue {
  return { path, keyword, expected, received, message: `${path || '(root)'}: expected ${expected}, received ${received}` };
}

/** Converts ajv errors (of a validation of `value`) to issues, dropping duplicates. */
export function toIssues(errors: readonly ErrorObject[] | null | undefined, value: unknown): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  const seen = new Set<string>();
  for (const error of errors ?? []) {
    const one = convert(error, value);
    const key = `${one.path}\u0000${one.keyword}\u0000${one.expected}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push(one);
    }
  }
  return out;
}

function convert(error: ErrorObject, root: unknown): ValidationIssue {
  const p = error.params as Record<string, unknown>;
  const at = error.instancePath;
  const here = valueAt(root, at);
  switch (error.keyword) {
    case 'required': {
      const name = String(p['missingProperty']);
      return issue(`${at}/${escapePointerSegment(name)}`, 'required', `required property "${name}"`, 'absent');
    }
    case 'additionalProperties': {
      const name = String(p['additionalProperty']);
      const path = `${at}/${escapePointerSegment(name)}`;
      return issue(path, 'additionalProperties', `no property "${name}" (not allowed here)`, describe(valueAt(root, path)));
    }
    case 'type':
      return issue(at, 'type', `type ${String(p['type']).split(',').join(' or ')}`, describe(here));
    case 'maxLength':
      return issue(at, 'maxLength', `at most ${String(p['limit'])} characters`, describe(here));
    case 'minLength':
      return issue(at, 'minLength', `at least ${String(p['limit'])} characters`, describe(here));
    case 'maximum':
    case 'minimum':
    case 'exclusiveMaximum':
    case 'exclusiveMinimum':
      return issue(at, error.keyword, `a number ${String(p['comparison'])} ${String(p['limit'])}`, describe(here));
    case 'maxItems':
      return issue(at, 'maxItems', `at most ${String(p['limit'])} items`, describe(here));
    case 'minItems':
      return issue(at, 'minItems', `at least ${String(p['limit'])} items`, describe(here));
    case 'enum':
      return issue(at, 'enum', `one of ${list(p['allowedValues'])}`, describe(here));
    case 'const':
      return issue(at, 'const', `the constant ${JSON.stringify(p['allowedValue'])}`, describe(here));
    case 'pattern':
      return issue(at, 'pattern', `a string matching ${String(p['pattern'])}`, describe(here));
    case 'format':
      return issue(at, 'format', `a string in format ${String(p['format'])}`, describe(here));
    default:
      return issue(at, error.keyword, error.message ?? error.keyword, describe(here));
  }
}

/** The value at a JSON pointer, or undefined when the path does not exist. */
export function valueAt(root: unknown, pointer: string): unknown {
  let node = root;
  for (const segment of pointerSegments(pointer)) {
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, segment)) return undefined;
    node = (node as Record<string, unknown>)[segment];
  }
  return node;
}

const MAX_SHOWN = 60;

/** A short rendering of a received value: long strings are cut, and their length is given. */
export function describe(value: unknown): string {
  if (value === undefined) return 'absent';
  if (typeof value === 'string') {
    const shown = value.length > MAX_SHOWN ? `${JSON.stringify(value.slice(0, MAX_SHOWN))}...` : JSON.stringify(value);
    return `${shown} (string of ${[...value].length} characters)`;
  }
  if (Array.isArray(value)) return `an array of ${value.length} items`;
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value);
    return keys.length ? `an object with ${keys.slice(0, 5).join(', ')}${keys.length > 5 ? ', ...' : ''}` : 'an empty object';
  }
  if (value === null) return 'null';
  return `${typeof value} ${String(value)}`;
}

function list(values: unknown): string {
  const all = Array.isArray(values) ? values : [];
  const shown = all.slice(0, 12).map((v) => JSON.stringify(v));
  return shown.join(', ') + (all.length > 12 ? `, ... (${all.length} values)` : '');
}
