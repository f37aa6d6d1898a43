/**
 * Arbitraries for the requests of one operation, derived from the loaded OpenAPI document:
 * request bodies and parameters, each as valid values plus single-bound violations.
 * Nothing is typed again by hand: change specs/openapi.yaml and these follow.
 */
import type fc from 'fast-check';
import type { BaseOperationInfo, JsonSchema, LoadedDocument, ParameterLocation } from '../spec/types.ts';
import { validValue } from './valid.ts';
import { violations, type Violation } from './violations.ts';

export { validValue } from './valid.ts';
export { violations, type Violation } from './violations.ts';
export { MAX_BODY_BYTES, UnsupportedSchemaError, type ValueOptions, type ViolationOptions, type Wire } from './options.ts';

/** Valid values and single-bound violations of one schema. */
export interface Arbitraries<T> {
  /** The schema both are derived from (validate against it to check them). */
  schema: JsonSchema;
  valid: fc.Arbitrary<T>;
  violations: Violation[];
}

type Doc = LoadedDocument<BaseOperationInfo>;

// Cached by the (frozen, shared) operation object, so each operation's arbitraries and
// parameter schemas are built once and the schema identity stays stable for ajv's cache.
const bodyCache = new WeakMap<BaseOperationInfo, Arbitraries<unknown>>();
const paramCache = new WeakMap<BaseOperationInfo, Map<ParameterLocation, Arbitraries<Record<string, unknown>>>>();

/**
 * The JSON request body of an operation: valid bodies and one violation per bound.
 * @throws Error naming the document when the operation takes no JSON body.
 */
export function bodyArbitraries(spec: Doc, operationId: string): Arbitraries<unknown> {
  const op = spec.operation(operationId);
  let cached = bodyCache.get(op);
  if (!cached) {
    const schema = op.requestBodySchema;
    if (!schema) throw new Error(`${spec.file}: operation "${operationId}" takes no JSON request body`);
    const schemaPath = `#/paths/${op.path}/${op.method.toLowerCase()}/requestBody`;
    cached = { schema, valid: validValue(schema, { schemaPath }), violations: violations(schema, { schemaPath }) };
    bodyCache.set(op, cached);
  }
  return cached;
}

/**
 * The parameters of an operation at one location as an object schema: one property per
 * parameter (named as on the wire), required where the parameter is.
 */
export function parameterSchema(spec: Doc, operationId: string, location: ParameterLocation = 'query'): JsonSchema {
  return parameterArbitraries(spec, operationId, location).schema;
}

/**
 * Parameter sets of an operation at one location (default: the query), as objects keyed by
 * parameter name with typed values (numbers, booleans, arrays); serialising them (style,
 * explode) is the HTTP layer's job. Violations are built for a text wire: a "wrong type" is a
 * string that does not parse under any common reading ("abc" for limit, "maybe" for includeArchived). A missing path
 * parameter cannot be sent, so path locations have no `required` violations.
 */
export function parameterArbitraries(spec: Doc, operationId: string, location: ParameterLocation = 'query'): Arbitraries<Record<string, unknown>> {
  const op = spec.operation(operationId);
  let byLocation = paramCache.get(op);
  if (!byLocation) {
    byLocation = new Map();
    paramCache.set(op, byLocation);
  }
  let cached = byLocation.get(location);
  if (!cached) {
    const params = op.parameters.filter((p) => p.in === location);
    const schema: JsonSchema = {
      type: 'object',
      properties: Object.fromEntries(params.map((p) => [p.name, p.schema])),
      required: params.filter((p) => p.required).map((p) => p.name),
    };
    const schemaPath = `#/paths/${op.path}/${op.method.toLowerCase()}/parameters(${location})`;
    const all = violations(schema, { schemaPath, wire: 'text' });
    cached = {
      schema,
      valid: validValue(schema, { schemaPath }) as fc.Arbitrary<Record<string, unknown>>,
      violations: location === 'path' ? all.filter((v) => v.keyword !== 'required') : all,
    };
    byLocation.set(location, cached);
  }
  return cached;
}
