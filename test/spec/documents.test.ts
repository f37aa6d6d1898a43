/**
 * The two OpenAPI documents: valid OpenAPI 3.1.1 by swagger-parser's own reading (not only
 * through our loader), every $ref resolved, every schema accepted by ajv in strict mode
 * (which rejects misspelt keywords), and the x-wgc extensions present where the suites need them.
 */
import SwaggerParser from '@apidevtools/swagger-parser';
import { describe, expect, test } from 'vitest';
import { DEFAULT_CONTROL_SPEC_PATH, DEFAULT_SPEC_PATH, loadControlSpec, loadSpec } from '../../src/spec/load.ts';
import type { JsonSchema } from '../../src/spec/types.ts';
import { validateValue } from '../../src/spec/validate.ts';

const spec = await loadSpec();
const control = await loadControlSpec();

/** Every object reachable from `root`, with its JSON path (shared objects visited once). */
function* walk(root: unknown, path = ''): Generator<[string, Record<string, unknown>]> {
  const seen = new Set<unknown>();
  const stack: [string, unknown][] = [[path, root]];
  while (stack.length) {
    const [at, node] = stack.pop()!;
    if (node === null || typeof node !== 'object' || seen.has(node)) continue;
    seen.add(node);
    if (!Array.isArray(node)) yield [at, node as Record<string, unknown>];
    for (const [k, v] of Object.entries(node)) stack.push([`${at}/${k}`, v]);
  }
}

describe.each([
  ['openapi.yaml', DEFAULT_SPEC_PATH, spec],
  ['control-openapi.yaml', DEFAULT_CONTROL_SPEC_PATH, control],
] as const)('%s', (_name, file, loaded) => {
  test('is OpenAPI 3.1.1 that swagger-parser validates when reading the file itself', async () => {
    const api = (await SwaggerParser.validate(file)) as unknown as Record<string, unknown>;
    expect(api['openapi']).toBe('3.1.1');
  });

  test('every $ref resolves: none is left after dereferencing', () => {
    const left = [...walk(loaded.document)].filter(([, node]) => '$ref' in node).map(([at]) => at);
    expect(left).toEqual([]);
    expect(JSON.stringify(loaded.raw)).toContain('$ref');
  });

  test('every schema compiles under ajv strict mode', () => {
    const schemas: JsonSchema[] = [];
    for (const op of loaded.operations) {
      if (op.requestBodySchema) schemas.push(op.requestBodySchema);
      for (const r of Object.values(op.responses)) if (r.schema) schemas.push(r.schema);
      for (const p of op.parameters) schemas.push(p.schema);
    }
    const components = (loaded.document['components'] as { schemas: Record<string, JsonSchema> }).schemas;
    schemas.push(...Object.values(components));
    expect(schemas.length).toBeGreaterThan(20);
    for (const schema of schemas) expect(() => validateValue(schema, null)).not.toThrow();
  });

  test('operation ids are camelCase and every operation has a summary and tags', () => {
    for (const op of loaded.operations) {
      expect(op.operationId).toMatch(/^[a-z][A-Za-z0-9]*$/);
      expect(op.summary.length, op.operationId).toBeGreaterThan(3);
      expect(op.tags.length, op.operationId).toBeGreaterThan(0);
    }
  });
});

describe('openapi.yaml', () => {
  const routes = spec.operations.map((op) => `${op.method} ${op.path}`).sort();

  test('has the twenty endpoints of seed parts 4.2-4.9 and no other, under {base_url}/api/v1', () => {
    expect(routes).toEqual(
      [
        'GET /me',
        'GET /capabilities',
        'GET /definitions',
        'POST /definitions',
        'PATCH /definitions/{definitionId}',
        'POST /definitions/{definitionId}/archive',
        'POST /definitions/{definitionId}/merge-value',
        'POST /operations',
        'GET /operations',
        'GET /operations/{operationId}',
        'POST /query',
        'POST /compute/preview',
        'POST /compute/runs',
        'GET /compute/runs/{runId}',
        'GET /data/accounts/{accountId}',
        'GET /data/people/{personId}',
        'GET /data/icps',
        'GET /data/relationships',
        'POST /graph/decision-inputs',
        'GET /graph/traces',
      ].sort(),
    );
    expect((spec.raw['servers'] as { url: string }[])[0]?.url).toBe('{base_url}/api/v1');
    expect((spec.raw['info'] as { version: string }).version).toBe('v1-beta');
  });

  test('declares both key schemes, either one accepted, globally', () => {
    expect(spec.raw['security']).toEqual([{ bearerAuth: [] }, { apiKeyHeader: [] }]);
    const schemes = (spec.raw['components'] as { securitySchemes: Record<string, unknown> }).securitySchemes;
    expect(schemes['bearerAuth']).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(schemes['apiKeyHeader']).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-Api-Key' });
  });

  test('every operation says who may call it and what a success costs', () => {
    for (const op of spec.operations) {
      expect(op.access, op.operationId).toBeDefined();
      expect(['free', 'billed'], op.operationId).toContain(op.billing);
    }
    const free = spec.operations
      .filter((op) => op.billing === 'free')
      .map((op) => op.operationId)
      .sort();
    expect(free).toEqual(['getCapabilities', 'getComputeRun', 'getMe', 'getOperation', 'listOperations']);
  });

  test('exactly the five endpoints of seed 4.1 are idempotent and take the Idempotency-Key header', () => {
    const five = ['archiveDefinition', 'createDefinition', 'mergeDefinitionValue', 'submitOperation', 'updateDefinition'];
    const withHeader = spec.operations.filter((op) => op.parameters.some((p) => p.in === 'header' && p.name === 'Idempotency-Key'));
    expect(
      spec.operations
        .filter((op) => op.idempotent)
        .map((op) => op.operationId)
        .sort(),
    ).toEqual(five);
    expect(withHeader.map((op) => op.operationId).sort()).toEqual(five);
    for (const op of withHeader) {
      const header = op.parameters.find((p) => p.name === 'Idempotency-Key')!;
      expect(header.required).toBe(false);
      expect(header.schema).toEqual({ type: 'string', minLength: 1, maxLength: 128, pattern: '^[\\x21-\\x7E]+$' });
    }
  });

  test('every operation answers errors with the envelope, 409 where a key can be reused', () => {
    for (const op of spec.operations) {
      const statuses = ['400', '401', '403', '404', '429', '500', '503', '4XX', '5XX', ...(op.idempotent ? ['409'] : [])];
      for (const status of statuses) {
        expect(op.responses[status]?.schema, `${op.operationId} ${status}`).toBe(spec.componentSchema('ErrorEnvelope'));
      }
    }
  });

  test('closes only the decision trace and its sub-objects', () => {
    const closed = [...walk(spec.raw)]
      .filter(([, node]) => node['additionalProperties'] === false)
      .map(([at]) => at)
      .sort();
    expect(closed).toEqual(['DecisionTrace', 'DefinitionRef', 'Evidence', 'Factor', 'Observation', 'ReportedOrigin'].map((n) => `/components/schemas/${n}`));
  });

  test('shapes the seed does not show are open objects that say what is missing', () => {
    const schemas = (spec.raw['components'] as { schemas: Record<string, JsonSchema> }).schemas;
    const notShown = Object.entries(schemas).filter(([, s]) => s['x-wgc-not-shown'] !== undefined);
    expect(notShown.length).toBeGreaterThanOrEqual(15);
    for (const [name, schema] of notShown) {
      expect(schema.type, name).toBe('object');
      expect(schema.required ?? [], name).toEqual([]);
      expect(schema.additionalProperties, name).toBeUndefined();
      expect(validateValue(spec.componentSchema(name), { anything: [1, 'two'] }), name).toEqual([]);
    }
  });

  test('catalog operations carry access rules, and POST /operations defers to them', () => {
    expect(spec.operation('submitOperation').access.scopes).toBeNull();
    expect(spec.catalogOperations['graph.agent_run']).toMatchObject({
      scopes: ['graph:read', 'graph:write', 'research:run'],
      roles: ['owner', 'admin', 'analyst'],
    });
    expect(spec.catalogOperations['graph.propose_update']?.scopes).toBeNull();
    expect(spec.catalogOperations['crm.read_partner_deal_properties']?.via).toBe('POST /query');
  });
});

describe('control-openapi.yaml', () => {
  test('has every endpoint of the control protocol v1, and its additions', () => {
    const routes = control.operations.map((op) => `${op.method} ${op.path}`);
    expect(routes).toHaveLength(20);
    expect(routes).toContain('POST /workspaces/{ws}/labels');
    expect(routes).toContain('GET /workspaces/{ws}/labels');
    expect(routes).toContain('GET /');
    expect(routes).toContain('PUT /keys/{keyId}/scopes');
    expect(routes).toContain('POST /workspaces/{ws}/accounts/{accountId}/people');
  });

  test('errors are { error: string }', () => {
    expect(validateValue(control.componentSchema('ControlError'), { error: 'unknown workspace' })).toEqual([]);
    expect(validateValue(control.componentSchema('ControlError'), { message: 'x' })).toHaveLength(1);
  });
});
