/**
 * Structural checks the OpenAPI meta-schema does not make (swagger-parser skips its own
 * "spec" checks for OpenAPI 3), and the extraction of a typed operation list from a
 * dereferenced document. Every problem is a SpecError that names the file and line.
 */
import type { z } from 'zod';
import { escapePointerSegment, pointerSegments, SpecError, type SourceFile } from './source.ts';
import type { BaseOperationInfo, HttpMethod, JsonSchema, OperationInfo, ParameterInfo, ResponseInfo } from './types.ts';
import { AccessRuleSchema, AmbiguitySchema, BillingSchema, IdempotentSchema, parseExtension } from './extensions.ts';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

type Obj = Record<string, unknown>;

function isObj(value: unknown): value is Obj {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Every local `$ref` ("#/...") must point at something. Checked on the raw document so the
 * error can name the line of the `$ref` itself, which swagger-parser's error does not.
 */
export function checkLocalRefs(source: SourceFile): void {
  const visit = (node: unknown, pointer: string): void => {
    if (Array.isArray(node)) {
      node.forEach((item, i) => visit(item, `${pointer}/${i}`));
      return;
    }
    if (!isObj(node)) return;
    const ref = node['$ref'];
    if (typeof ref === 'string' && ref.startsWith('#') && resolvePointer(source.data, ref) === undefined) {
      throw new SpecError(`${source.locate(`${pointer}/$ref`)}: $ref "${ref}" does not resolve`);
    }
    for (const [key, value] of Object.entries(node)) visit(value, `${pointer}/${escapePointerSegment(key)}`);
  };
  visit(source.data, '');
}

function resolvePointer(root: unknown, pointer: string): unknown {
  let node: unknown = root;
  for (const segment of pointerSegments(pointer)) {
    if (Array.isArray(node)) node = node[Number(segment)];
    else if (isObj(node) && Object.hasOwn(node, segment)) node = node[segment];
    else return undefined;
  }
  return node;
}

/** Walks the dereferenced paths and returns one BaseOperationInfo per operation, checked. */
export function extractOperations(source: SourceFile, document: Obj): BaseOperationInfo[] {
  const paths = isObj(document['paths']) ? document['paths'] : {};
  const seen = new Map<string, string>();
  const operations: BaseOperationInfo[] = [];
  for (const [path, item] of Object.entries(paths)) {
    if (!isObj(item)) continue;
    for (const method of METHODS) {
      const op = item[method];
      if (!isObj(op)) continue;
      const pointer = `/paths/${escapePointerSegment(path)}/${method}`;
      const fail = (what: string, at = pointer): never => {
        throw new SpecError(`${source.locate(at)}: ${method.toUpperCase()} ${path}: ${what}`);
      };
      const operationId = op['operationId'];
      if (typeof operationId !== 'string' || !/^[a-z][A-Za-z0-9]*$/.test(operationId)) fail('needs a camelCase operationId');
      const id = operationId as string;
      const previous = seen.get(id);
      if (previous) fail(`operationId "${id}" is also used by ${previous}`, `${pointer}/operationId`);
      seen.set(id, `${method.toUpperCase()} ${path}`);
      if (typeof op['summary'] !== 'string' || op['summary'] === '') fail('needs a summary');
      const tags = op['tags'];
      if (!Array.isArray(tags) || tags.length === 0) fail('needs at least one tag');

      const parameters = mergeParameters(item['parameters'], op['parameters']);
      const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string);
      for (const name of templated) {
        if (!parameters.some((p) => p.in === 'path' && p.name === name)) fail(`path parameter "${name}" is not declared`);
      }
      for (const p of parameters) {
        if (p.in === 'path' && !templated.includes(p.name)) fail(`path parameter "${p.name}" is not in the path`);
      }

      const body = isObj(op['requestBody']) ? op['requestBody'] : undefined;
      const bodySchema = jsonSchemaOf(body?.['content']);
      const responses: Record<string, ResponseInfo> = {};
      if (!isObj(op['responses'])) fail('needs responses');
      for (const [status, response] of Object.entries(op['responses'] as Obj)) {
        if (!isObj(response)) continue;
        const schema = jsonSchemaOf(response['content']);
        responses[status] = {
          status,
          description: typeof response['description'] === 'string' ? response['description'] : '',
          ...(schema ? { schema } : {}),
        };
      }
      operations.push({
        operationId: id,
        method: method.toUpperCase() as HttpMethod,
        path,
        summary: op['summary'] as string,
        tags: tags as string[],
        parameters,
        ...(bodySchema ? { requestBodySchema: bodySchema } : {}),
        requestBodyRequired: body?.['required'] === true,
        responses,
      });
    }
  }
  return operations;
}

/** Reads the x-wgc extensions of every operation of the service document; throws on bad or missing ones. */
export function withExtensions(source: SourceFile, document: Obj, base: BaseOperationInfo[]): OperationInfo[] {
  const paths = document['paths'] as Record<string, Obj>;
  return base.map((info) => {
    const op = paths[info.path]?.[info.method.toLowerCase()] as Obj;
    const pointer = `/paths/${escapePointerSegment(info.path)}/${info.method.toLowerCase()}`;
    const read = <T>(name: string, schema: z.ZodType<T>, required: boolean): T => {
      const value = op[name];
      if (value === undefined && required) {
        throw new SpecError(`${source.locate(pointer)}: ${info.method} ${info.path}: missing ${name}`);
      }
      const parsed = parseExtension(schema, value);
      if (!parsed.ok) throw new SpecError(`${source.locate(`${pointer}/${name}`)}: ${info.method} ${info.path}: ${name}: ${parsed.problem}`);
      return parsed.value;
    };
    const access = read('x-wgc-access', AccessRuleSchema, true);
    const billing = read('x-wgc-billing', BillingSchema, true);
    const idempotent = read('x-wgc-idempotent', IdempotentSchema, false) === true;
    const ambiguity = read('x-wgc-ambiguity', AmbiguitySchema.optional(), false);
    return {
      ...info,
      access: { scopes: access.scopes, roles: access.roles, ...(access.note ? { note: access.note } : {}) },
      billing,
      idempotent,
      ...(ambiguity ? { ambiguity } : {}),
    };
  });
}

/** Path-item parameters apply unless the operation redeclares the same name and location. */
function mergeParameters(pathLevel: unknown, opLevel: unknown): ParameterInfo[] {
  const own = (Array.isArray(opLevel) ? opLevel : []).filter(isObj).map(toParameter);
  const inherited = (Array.isArray(pathLevel) ? pathLevel : []).filter(isObj).map(toParameter);
  return [...inherited.filter((p) => !own.some((o) => o.in === p.in && o.name === p.name)), ...own];
}

function toParameter(p: Obj): ParameterInfo {
  return {
    name: String(p['name']),
    in: p['in'] as ParameterInfo['in'],
    required: p['required'] === true,
    schema: (isObj(p['schema']) ? p['schema'] : {}) as JsonSchema,
    ...(typeof p['style'] === 'string' ? { style: p['style'] } : {}),
    ...(typeof p['explode'] === 'boolean' ? { explode: p['explode'] } : {}),
    ...(typeof p['description'] === 'string' ? { description: p['description'] } : {}),
  };
}

function jsonSchemaOf(content: unknown): JsonSchema | undefined {
  if (!isObj(content)) return undefined;
  const media = content['application/json'];
  return isObj(media) && isObj(media['schema']) ? (media['schema'] as JsonSchema) : undefined;
}
