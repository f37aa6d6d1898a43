/**
 * What a string schema asks for, read once for every generator (valid values, minimal values):
 * its length bounds and either a supported format, a supported pattern, or free text. A schema
 * the generators cannot honour throws UnsupportedSchemaError naming its path.
 */
import type { JsonSchema } from '../spec/types.ts';
import { FORMATS, type FormatSupport } from './formats.ts';
import { UnsupportedSchemaError } from './options.ts';
import { PATTERNS, type PatternSupport } from './patterns.ts';

export type StringShape = { min: number; max: number | undefined } & ({ kind: 'format'; format: FormatSupport } | { kind: 'pattern'; pattern: PatternSupport } | { kind: 'text' });

export function stringShape(schema: JsonSchema, at: string): StringShape {
  const min = schema.minLength ?? 0;
  const max = schema.maxLength;
  if (max !== undefined && max < min) throw new UnsupportedSchemaError(at, `maxLength ${max} is below minLength ${min}`);
  if (schema.format !== undefined) {
    const format = FORMATS[schema.format];
    if (!format) throw new UnsupportedSchemaError(at, `format "${schema.format}" is not supported by the generators`);
    return { min, max, kind: 'format', format };
  }
  if (schema.pattern !== undefined) {
    const pattern = Object.hasOwn(PATTERNS, schema.pattern) ? PATTERNS[schema.pattern] : undefined;
    if (!pattern) throw new UnsupportedSchemaError(at, `pattern ${schema.pattern} is not supported by the generators (see src/generators/patterns.ts)`);
    return { min, max, kind: 'pattern', pattern };
  }
  return { min, max, kind: 'text' };
}
