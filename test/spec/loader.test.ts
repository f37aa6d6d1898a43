/**
 * loadSpec(): caching, hashing, route lookup, and bad input. Every bad document must fail
 * with a message that starts with "file:line:col" so it can be fixed without a debugger.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { DEFAULT_SPEC_PATH, loadControlSpec, loadSpec } from '../../src/spec/load.ts';

const dir = mkdtempSync(join(tmpdir(), 'wgc-spec-'));
const original = readFileSync(DEFAULT_SPEC_PATH, 'utf8');

/** Writes a variant of openapi.yaml; `edit` must change the text (guards against a stale fixture). */
function variant(name: string, edit: (text: string) => string): string {
  const text = edit(original);
  expect(text, `${name}: the edit did not apply`).not.toBe(original);
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

/** 1-based line of the first occurrence of `needle` in `text`. */
function lineOf(text: string, needle: string): number {
  return text.slice(0, text.indexOf(needle)).split('\n').length;
}

describe('loadSpec', () => {
  test('loads once per path, and hashes the file bytes', async () => {
    const [a, b] = await Promise.all([loadSpec(), loadSpec(DEFAULT_SPEC_PATH)]);
    expect(a).toBe(b);
    expect(a.hash).toBe(createHash('sha256').update(readFileSync(DEFAULT_SPEC_PATH)).digest('hex'));
    expect(Object.isFrozen(a.document)).toBe(true);
  });

  test('finds the operation of a request by template or concrete path', async () => {
    const spec = await loadSpec();
    expect(spec.operationByRoute('post', '/definitions/{definitionId}/archive')?.operationId).toBe('archiveDefinition');
    expect(spec.operationByRoute('PATCH', '/api/v1/definitions/6f1c0a52-0000-4000-8000-000000000000?x=1')?.operationId).toBe('updateDefinition');
    expect(spec.operationByRoute('GET', '/data/icps')?.operationId).toBe('listIcps');
    expect(spec.operationByRoute('GET', '/definitions/abc')).toBeUndefined();
    expect(spec.operationByRoute('DELETE', '/definitions')).toBeUndefined();
    expect(() => spec.operation('noSuchOperation')).toThrow(/openapi\.yaml: no operation "noSuchOperation"/);
  });

  test('loadControlSpec reads the control document', async () => {
    const control = await loadControlSpec();
    expect(control.operationByRoute('GET', '/')?.operationId).toBe('getProtocolInfo');
    expect(control.operationByRoute('DELETE', '/workspaces/ws-1/members/u-2')?.operationId).toBe('removeMember');
  });
});

describe('loadSpec on bad input names the file and the place', () => {
  test('a missing file', async () => {
    const file = join(dir, 'absent.yaml');
    await expect(loadSpec(file)).rejects.toThrow(`${file}: cannot read the document`);
  });

  test('a YAML syntax error', async () => {
    const file = variant('syntax.yaml', (t) => t.replace('  /me:\n    get:\n', '  /me:\n    get: [unclosed\n'));
    await expect(loadSpec(file)).rejects.toThrow(new RegExp(`^${file}:\\d+:\\d+: YAML syntax error`));
  });

  test('a document that breaks the OpenAPI 3.1 schema points at the offending line', async () => {
    const file = variant('invalid.yaml', (t) => t.replace('      operationId: getMe\n', '      operationId: getMe\n      responses_typo: 1\n'));
    // The meta-schema reports the operation object, whose mapping starts at its first key.
    const line = lineOf(readFileSync(file, 'utf8'), 'operationId: getMe');
    await expect(loadSpec(file)).rejects.toThrow(new RegExp(`^${file}:${line}:\\d+: invalid OpenAPI document`));
    await expect(loadSpec(file)).rejects.toThrow('#/paths/~1me/get must NOT have unevaluated properties');
  });

  test('a $ref that does not resolve points at the $ref', async () => {
    const file = variant('ref.yaml', (t) => t.replace("$ref: '#/components/schemas/MergeResult'", "$ref: '#/components/schemas/Nope'"));
    const line = lineOf(readFileSync(file, 'utf8'), 'schemas/Nope');
    await expect(loadSpec(file)).rejects.toThrow(`${file}:${line}:`);
    await expect(loadSpec(file)).rejects.toThrow('"#/components/schemas/Nope" does not resolve');
  });

  test('an operation without x-wgc-access', async () => {
    const file = variant('access.yaml', (t) => t.replace("      x-wgc-access: { scopes: ['graph:read'], roles: null }\n", ''));
    await expect(loadSpec(file)).rejects.toThrow(new RegExp(`^${file}:\\d+:\\d+: GET /definitions: missing x-wgc-access`));
  });

  test('a malformed extension value', async () => {
    const file = variant('billing.yaml', (t) =>
      t.replace(
        '      operationId: getMe\n      summary: Introspect the calling key\n      tags: [me]\n      x-wgc-access: { scopes: [], roles: null, note: any valid key }\n      x-wgc-billing: free',
        '      operationId: getMe\n      summary: Introspect the calling key\n      tags: [me]\n      x-wgc-access: { scopes: [], roles: null, note: any valid key }\n      x-wgc-billing: sometimes',
      ),
    );
    const line = lineOf(readFileSync(file, 'utf8'), 'x-wgc-billing: sometimes');
    await expect(loadSpec(file)).rejects.toThrow(new RegExp(`^${file}:${line}:\\d+: GET /me: x-wgc-billing:`));
  });

  test('an unknown scope in an access rule', async () => {
    const file = variant('scope.yaml', (t) => t.replace("scopes: ['graph:read'], roles: null }", "scopes: ['graph:reed'], roles: null }"));
    await expect(loadSpec(file)).rejects.toThrow(/GET \/definitions: x-wgc-access: scopes\.0/);
  });

  test('a templated path without its parameter', async () => {
    const file = variant('param.yaml', (t) => t.replace("  /data/accounts/{accountId}:\n    parameters:\n      - $ref: '#/components/parameters/AccountId'\n", '  /data/accounts/{accountId}:\n'));
    await expect(loadSpec(file)).rejects.toThrow(/GET \/data\/accounts\/\{accountId\}: path parameter "accountId" is not declared/);
  });
});
