/** The shared expectation helpers: findings name the caller's clause ids and carry evidence. */
import { describe, expect, test } from 'vitest';
import type { CheckContext } from '../../src/engine/check.ts';
import { expectErrorEnvelope, expectJson, expectNoChange, expectResponse, expectStatus } from '../../src/engine/expect.ts';
import { Disabled, Finding } from '../../src/engine/finding.ts';
import type { Exchange, TransportError } from '../../src/http/exchange.ts';

function ex(status: number, body: unknown, error?: TransportError): Exchange {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return {
    id: 't-1',
    request: { method: 'GET', url: 'http://127.0.0.1/api/v1/me', headers: {} },
    response: { status, headers: {}, text, json: typeof body === 'string' ? undefined : body, isJson: typeof body !== 'string', bytes: text.length, truncated: false },
    ...(error ? { error } : {}),
    startedAt: '2026-01-01T00:00:00.000Z',
    durationMs: 1,
    retries: 0,
  };
}

function evidenceOf(fn: () => unknown): Finding['evidence'] {
  try {
    fn();
  } catch (e) {
    if (e instanceof Finding) return e.evidence;
    throw e;
  }
  throw new Error('expected a Finding');
}

const env = (status: number, code: string, defined = true) => ({ defined, code, status, message: 'm' });
const ids = { envelope: 'ERR-001', known: 'ERR-002', status: 'AUTH-004' };

describe('expectResponse / expectStatus / expectJson', () => {
  test('a timeout is a finding; an insecure-transport refusal is a configuration matter', () => {
    const timeout: Exchange = { ...ex(0, ''), response: undefined, error: { kind: 'timeout', message: 'no complete response within 10 ms' } };
    expect(evidenceOf(() => expectResponse('X-001', timeout))).toMatchObject({ clause: 'X-001', message: 'no usable response: timeout: no complete response within 10 ms', exchange: timeout });
    const refused: Exchange = { ...timeout, error: { kind: 'insecure-refused', message: 'use --allow-insecure-http' } };
    expect(() => expectResponse('X-001', refused)).toThrow(Disabled);
  });

  test('status and JSON expectations show what was received', () => {
    expect(evidenceOf(() => expectStatus('AUTH-004', ex(403, env(403, 'FORBIDDEN')), 401))).toMatchObject({
      clause: 'AUTH-004',
      expected: 'status 401',
      received: '403 {"defined":true,"code":"FORBIDDEN","status":403,"message":"m"}',
    });
    expect(expectStatus('X', ex(201, {}), [200, 201]).status).toBe(201);
    expect(evidenceOf(() => expectJson('X-002', ex(200, '<html>')))).toMatchObject({ clause: 'X-002', message: 'the body is not JSON' });
  });
});

describe('expectErrorEnvelope', () => {
  test('a table status needs defined true, the table code and the HTTP status', () => {
    expect(expectErrorEnvelope(ids, ex(401, env(401, 'UNAUTHORIZED')), 401)).toMatchObject({ code: 'UNAUTHORIZED' });
    expect(evidenceOf(() => expectErrorEnvelope(ids, ex(401, env(401, 'unauthorized')), 401))).toMatchObject({ clause: 'ERR-002', message: 'a 401 error has code "unauthorized"' });
    expect(evidenceOf(() => expectErrorEnvelope(ids, ex(404, env(400, 'NOT_FOUND'))))).toMatchObject({ clause: 'ERR-002', message: "the error body's status 400 differs from the HTTP status 404" });
    expect(evidenceOf(() => expectErrorEnvelope(ids, ex(409, env(409, 'CONFLICT', false))))).toMatchObject({ clause: 'ERR-002', message: 'a 409 error has defined false' });
  });

  test('the shape is checked on every error; non-table statuses are free-form', () => {
    expect(evidenceOf(() => expectErrorEnvelope(ids, ex(400, { code: 'BAD_REQUEST', status: 400, message: 'm' })))).toMatchObject({
      clause: 'ERR-001',
      message: 'the error body\'s "defined" is missing',
    });
    expect(evidenceOf(() => expectErrorEnvelope(ids, ex(400, 'Bad Request')))).toMatchObject({ clause: 'ERR-001', message: 'the error body is not a JSON object' });
    expect(expectErrorEnvelope(ids, ex(415, { defined: false, code: 'unsupported', status: 415, message: 'x', data: { a: 1 } }))).toMatchObject({ defined: false });
  });

  test('an unexpected status is attributed to the status clause', () => {
    expect(evidenceOf(() => expectErrorEnvelope(ids, ex(200, {}), 401))).toMatchObject({ clause: 'AUTH-004' });
  });
});

describe('no-change expectations', () => {
  test('expectNoChange compares what the probe sees before and after', async () => {
    let state = { a: 1 };
    await expect(
      expectNoChange(
        'SVC-005',
        async () => state,
        async () => 'ok',
        'the definition list',
      ),
    ).resolves.toBe('ok');
    await expect(
      expectNoChange(
        'SVC-005',
        async () => state,
        async () => void (state = { a: 2 }),
        'the definition list',
      ),
    ).rejects.toMatchObject({
      evidence: { clause: 'SVC-005', message: 'the definition list changed', expected: '{"a":1}', received: '{"a":2}' },
    });
  });
});
