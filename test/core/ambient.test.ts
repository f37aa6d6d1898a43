import { describe, expect, test } from 'vitest';
import { AmbientEnvelope } from '../../src/engine/ambient.ts';
import type { Exchange } from '../../src/http/exchange.ts';

const exchange = (status: number, body: unknown, opts: { truncated?: boolean } = {}): Exchange => {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  let json: unknown;
  let isJson = true;
  try {
    json = JSON.parse(text);
  } catch {
    isJson = false;
  }
  return {
    id: 't-1',
    request: { method: 'GET', url: 'http://127.0.0.1:1/api/v1/x', headers: {} },
    response: { status, headers: {}, text, json, isJson, bytes: text.length, truncated: opts.truncated ?? false },
    startedAt: new Date(0).toISOString(),
    durationMs: 1,
    retries: 0,
  };
};
const passedCheck = { outcome: 'passed' as const, clauses: { 'AUTH-004': 'passed' as const }, findings: [] };

describe('ambient envelope check on every error answer', () => {
  test('adds ERR-001 and ERR-002 as passed when every error answer is a proper envelope', () => {
    const a = new AmbientEnvelope({ clauses: ['AUTH-004'] });
    a.observe(exchange(401, { defined: true, code: 'UNAUTHORIZED', status: 401, message: 'no key' }));
    a.observe(exchange(200, { ok: true }));
    const c = a.merge(passedCheck);
    expect(c.clauses).toEqual({ 'AUTH-004': 'passed', 'ERR-001': 'passed', 'ERR-002': 'passed' });
    expect(c.outcome).toBe('passed');
  });

  test('fails ERR-001 for an error body that is not an envelope, with the exchange as evidence', () => {
    const a = new AmbientEnvelope({ clauses: ['AUTH-004'] });
    a.observe(exchange(502, '<html>bad gateway</html>'));
    const c = a.merge(passedCheck);
    expect(c.clauses['ERR-001']).toBe('failed');
    expect(c.outcome).toBe('failed');
    expect(c.findings[0]?.clause).toBe('ERR-001');
    expect(c.findings[0]?.exchange?.response?.status).toBe(502);
  });

  test('fails ERR-002 for a table status with the wrong constants', () => {
    const a = new AmbientEnvelope({ clauses: ['AUTH-004'] });
    a.observe(exchange(403, { defined: true, code: 'DENIED', status: 403, message: 'm' }));
    const c = a.merge(passedCheck);
    expect(c.clauses['ERR-001']).toBe('passed');
    expect(c.clauses['ERR-002']).toBe('failed');
  });

  test('adds nothing when no error answer was seen, or when the check names the envelope clauses itself', () => {
    const quiet = new AmbientEnvelope({ clauses: ['AUTH-004'] });
    quiet.observe(exchange(200, {}));
    expect(quiet.merge(passedCheck).clauses).toEqual({ 'AUTH-004': 'passed' });
    const own = new AmbientEnvelope({ clauses: ['ERR-003', 'ERR-001'] });
    own.observe(exchange(404, 'nope'));
    expect(own.merge(passedCheck).clauses).toEqual({ 'AUTH-004': 'passed' });
  });

  test('a truncated body (over the size cap) is left to the transport finding', () => {
    const a = new AmbientEnvelope({ clauses: ['AUTH-004'] });
    a.observe(exchange(500, '{"defin', { truncated: true }));
    expect(a.merge(passedCheck).clauses).toEqual({ 'AUTH-004': 'passed' });
  });
});
