/**
 * Validators compiled from the loaded OpenAPI documents with ajv (draft 2020-12, the
 * dialect of OpenAPI 3.1). One ajv instance, created on first use; each schema is compiled
 * once, on first use, and cached by identity (the loaded documents are frozen and shared).
 *
 * ajv runs in strict mode so a misspelt keyword in specs/*.yaml fails compilation instead
 * of silently validating nothing; the x-wgc annotation keywords are declared below.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import formatsModule from 'ajv-formats';
import { issue, toIssues, type ValidationIssue } from './issues.ts';
import type { BaseOperationInfo, JsonSchema, LoadedDocument, ResponseInfo } from './types.ts';

export type { ValidationIssue } from './issues.ts';

/** Keywords of specs/*.yaml that annotate and never validate. */
const ANNOTATIONS = ['x-wgc-not-shown', 'x-wgc-known-errors'];

// ajv-formats is CommonJS: under NodeNext its default import is module.exports, whose
// `default` property is the plugin itself at runtime as well.
const addFormats = formatsModule.default;

let ajv: Ajv2020 | undefined;
const compiled = new WeakMap<object, ValidateFunction>();

function instance(): Ajv2020 {
  if (!ajv) {
    // allowUnionTypes: nullable fields are written `type: [string, "null"]`.
    ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
    addFormats(ajv);
    for (const keyword of ANNOTATIONS) ajv.addKeyword({ keyword, schemaType: ['string', 'array', 'object'] });
  }
  return ajv;
}

function compile(schema: JsonSchema): ValidateFunction {
  let fn = compiled.get(schema);
  if (!fn) {
    fn = instance().compile(schema);
    compiled.set(schema, fn);
  }
  return fn;
}

/** Validates `value` against any schema of a loaded document (or one built from its parts). */
export function validateValue(schema: JsonSchema, value: unknown): ValidationIssue[] {
  const fn = compile(schema);
  return fn(value) ? [] : toIssues(fn.errors, value);
}

/** Validates `value` against components/schemas/<componentName>, e.g. "Definition", "ErrorEnvelope", "Me". */
export function validateSchema(spec: LoadedDocument<BaseOperationInfo>, componentName: string, value: unknown): ValidationIssue[] {
  return validateValue(spec.componentSchema(componentName), value);
}

/** The declared response for a status: the exact code, then its range ("4XX"), then "default". */
export function responseFor(op: BaseOperationInfo, status: number): ResponseInfo | undefined {
  return op.responses[String(status)] ?? op.responses[`${Math.floor(status / 100)}XX`] ?? op.responses['default'];
}

/**
 * Validates a response body of an operation. An undeclared status is one issue with keyword
 * "status"; a declared response without a JSON schema (204) has nothing to check.
 * @throws Error when the operationId does not exist (a harness mistake, not a target deviation).
 */
export function validateResponse(spec: LoadedDocument<BaseOperationInfo>, operationId: string, status: number, body: unknown): ValidationIssue[] {
  const op = spec.operation(operationId);
  const response = responseFor(op, status);
  if (!response) {
    return [issue('', 'status', `a declared status (${Object.keys(op.responses).join(', ')})`, `status ${status}`)];
  }
  return response.schema ? validateValue(response.schema, body) : [];
}

/**
 * Validates a request body of an operation (used to check the generators and request fixtures).
 * @throws Error when the operation does not exist or takes no JSON body.
 */
export function validateRequestBody(spec: LoadedDocument<BaseOperationInfo>, operationId: string, body: unknown): ValidationIssue[] {
  const op = spec.operation(operationId);
  if (!op.requestBodySchema) throw new Error(`${spec.file}: operation "${operationId}" takes no JSON request body`);
  if (body === undefined) {
    return op.requestBodyRequired ? [issue('', 'required', 'a request body', 'absent')] : [];
  }
  return validateValue(op.requestBodySchema, body);
}
