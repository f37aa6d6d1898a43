/**
 * validateResponse / validateSchema / validateRequestBody: valid bodies pass, broken ones give
 * readable issues (where, which keyword, expected, received), statuses fall back to ranges.
 */
import { describe, expect, test } from 'vitest';
import { loadSpec } from '../../src/spec/load.ts';
import { validateRequestBody, validateResponse, validateSchema } from '../../src/spec/validate.ts';

const spec = await loadSpec();

const definition = {
  id: '6f1c0a52-1b2c-4d3e-8f40-123456789abc',
  workspace_id: 'ws_1',
  name: 'Segment',
  slug: 'segment',
  description: null,
  module_key: 'customers',
  entity_kinds: ['account'],
  value_type: 'enum',
  cardinality: null,
  enum_values: [{ label: 'Enterprise', slug: 'enterprise', archived: false }],
  instruction: null,
  refresh_policy: 'on_ingest',
  capture_enabled: false,
  auto_apply_threshold: 0.85,
  review_threshold: 0.6,
  chat_visible: true,
  state: 'draft',
  est_credits_low: null,
  est_credits_high: null,
  last_run_credits: null,
  created_by: null,
  reason: null,
  created_at: '2024-06-01T10:00:00Z',
  updated_at: '2024-06-01T10:00:00Z',
  archived_at: null,
};

describe('validateResponse', () => {
  test('a conformant Definition passes for both create statuses and for update', () => {
    expect(validateResponse(spec, 'createDefinition', 200, definition)).toEqual([]);
    expect(validateResponse(spec, 'createDefinition', 201, definition)).toEqual([]);
    expect(validateResponse(spec, 'updateDefinition', 200, { ...definition, description: 'x', extra_field: 1 })).toEqual([]);
  });

  test('a broken Definition gives one readable issue per problem', () => {
    const { slug: _slug, ...withoutSlug } = definition;
    const broken = {
      ...withoutSlug,
      name: 5,
      cardinality: 'single',
      enum_values: [{ label: 'Enterprise', archived: 'no' }],
      id: null,
      description: 'x'.repeat(200),
    };
    const issues = validateResponse(spec, 'createDefinition', 201, broken);
    expect(issues).toEqual(
      expect.arrayContaining([
        { path: '/slug', keyword: 'required', expected: 'required property "slug"', received: 'absent', message: '/slug: expected required property "slug", received absent' },
        { path: '/name', keyword: 'type', expected: 'type string', received: 'number 5', message: '/name: expected type string, received number 5' },
        expect.objectContaining({ path: '/cardinality', keyword: 'enum', expected: 'one of "exclusive", "multi", null', received: '"single" (string of 6 characters)' }),
        expect.objectContaining({ path: '/enum_values/0/slug', keyword: 'required' }),
        expect.objectContaining({ path: '/enum_values/0/archived', keyword: 'type', expected: 'type boolean' }),
        expect.objectContaining({ path: '/id', keyword: 'type', received: 'null' }),
      ]),
    );
    // A long string is not an issue (no bound on output), and is never shown whole.
    expect(issues.some((i) => i.path === '/description')).toBe(false);
    expect(issues).toHaveLength(6);
  });

  test('issues inside a page point into the items', () => {
    const issues = validateResponse(spec, 'listDefinitions', 200, { items: [definition, { ...definition, state: 'gone' }], nextCursor: 'abc' });
    expect(issues.map((i) => `${i.path} ${i.keyword}`)).toEqual(['/items/1/state enum', '/nextCursor format']);
  });

  test('a broken ErrorEnvelope', () => {
    const issues = validateSchema(spec, 'ErrorEnvelope', { defined: 'yes', code: 404, message: 'Resource not found' });
    expect(issues.map((i) => i.message)).toEqual([
      '/status: expected required property "status", received absent',
      '/defined: expected type boolean, received "yes" (string of 3 characters)',
      '/code: expected type string, received number 404',
    ]);
  });

  test('error statuses fall back to the 4XX/5XX ranges; an undeclared status is an issue', () => {
    const envelope = { defined: false, code: 'I_AM_A_TEAPOT', status: 418, message: 'no' };
    expect(validateResponse(spec, 'getMe', 418, envelope)).toEqual([]);
    expect(validateResponse(spec, 'getMe', 502, {}).map((i) => i.keyword)).toEqual(['required', 'required', 'required', 'required']);
    const [undeclared] = validateResponse(spec, 'getMe', 302, null);
    expect(undeclared).toMatchObject({ path: '', keyword: 'status', received: 'status 302' });
    expect(undeclared!.expected).toContain('200');
  });

  test('Me: the capability constants are checked', () => {
    const capabilities = Object.fromEntries(
      ['definitions', 'graphReads', 'graphEdits', 'context', 'research', 'enrichment', 'crm', 'workflows', 'automaticCapture', 'relationEditing', 'graphCompute'].map((k) => [k, true]),
    );
    const me = {
      workspaceId: 'w',
      userId: 'u',
      role: 'owner',
      scopes: ['admin'],
      beta: true,
      capabilities: { ...capabilities, operationCatalog: '/api/v1/capabilities', moduleVisibility: 'definitions' },
    };
    expect(validateSchema(spec, 'Me', me)).toEqual([]);
    const wrong = validateSchema(spec, 'Me', { ...me, capabilities: { ...me.capabilities, operationCatalog: '/capabilities', crm: undefined } });
    expect(wrong.map((i) => `${i.path} ${i.keyword}`)).toEqual(['/capabilities/crm required', '/capabilities/operationCatalog const']);
  });
});

describe('validateRequestBody and validateSchema misuse', () => {
  test('a missing required body is an issue; an operation without a body is a harness error', () => {
    expect(validateRequestBody(spec, 'archiveDefinition', undefined)).toMatchObject([{ keyword: 'required', received: 'absent' }]);
    expect(validateRequestBody(spec, 'runQuery', undefined)).toEqual([]);
    expect(() => validateRequestBody(spec, 'getMe', {})).toThrow('operation "getMe" takes no JSON request body');
    expect(() => validateSchema(spec, 'Nope', {})).toThrow('no schema "Nope"');
  });
});
