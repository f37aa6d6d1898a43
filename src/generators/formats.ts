/**
 * The string formats of specs/openapi.yaml the generators support: values that satisfy them
 * and values that break them, as ajv-formats (full mode) judges.
 */
import fc from 'fast-check';

/** What the generators can do with one format. */
export interface FormatSupport {
  valid: fc.Arbitrary<string>;
  invalid: fc.Arbitrary<string>;
}

const uuid: FormatSupport = {
  valid: fc.uuid(),
  // ajv-formats accepts upper case and a "urn:uuid:" prefix, so neither is used as a violation.
  invalid: fc.oneof(
    fc.constantFrom('not-a-uuid', '', '12345'),
    fc.uuid().map((u) => u.replace(/-/g, '')),
    fc.uuid().map((u) => u.slice(0, -1)),
    fc.uuid().map((u) => `${u}0`),
    fc.uuid().map((u) => `g${u.slice(1)}`),
  ),
};

const DATE_MIN = new Date('2000-01-01T00:00:00.000Z');
const DATE_MAX = new Date('2099-12-31T23:59:59.999Z');

const dateTime: FormatSupport = {
  valid: fc.oneof(
    fc.date({ min: DATE_MIN, max: DATE_MAX, noInvalidDate: true }).map((d) => d.toISOString()),
    fc.date({ min: DATE_MIN, max: DATE_MAX, noInvalidDate: true }).map((d) => d.toISOString().replace(/\.\d{3}Z$/, 'Z')),
    fc.date({ min: DATE_MIN, max: DATE_MAX, noInvalidDate: true }).map((d) => d.toISOString().replace(/Z$/, '+00:00')),
  ),
  invalid: fc.oneof(
    fc.constantFrom('2024-13-01T00:00:00Z', '2024-02-30T00:00:00Z', '2024-01-01T25:00:00Z', 'yesterday', ''),
    // A date alone, and a date-time without its time zone: RFC 3339 requires both parts.
    fc.date({ min: DATE_MIN, max: DATE_MAX, noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)),
    fc.date({ min: DATE_MIN, max: DATE_MAX, noInvalidDate: true }).map((d) => d.toISOString().slice(0, 19)),
  ),
};

/** Supported formats, by name. */
export const FORMATS: Readonly<Record<string, FormatSupport>> = { uuid, 'date-time': dateTime };
