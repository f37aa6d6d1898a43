/**
 * Maps a request (method + template or concrete path) to the operation that serves it.
 */
import type { BaseOperationInfo } from './types.ts';

const API_PREFIX = '/api/v1';

/**
 * Builds a lookup over `operations`. Literal segments win over templated ones, so a
 * hypothetical "/data/icps" beats "/data/{id}" whatever the document order.
 */
export function routeMatcher<Op extends BaseOperationInfo>(operations: readonly Op[]): (method: string, path: string) => Op | undefined {
  const compiled = operations.map((op) => ({ op, segments: split(op.path) }));
  return (method, path) => {
    const wanted = method.toUpperCase();
    const segments = split(normalise(path));
    let best: { op: Op; literals: number } | undefined;
    for (const { op, segments: template } of compiled) {
      if (op.method !== wanted || template.length !== segments.length) continue;
      let literals = 0;
      const matches = template.every((t, i) => {
        const s = segments[i] as string;
        if (/^\{[^}]+\}$/.test(t)) return s !== '';
        literals += 1;
        return t === s;
      });
      if (matches && (!best || literals > best.literals)) best = { op, literals };
    }
    return best?.op;
  };
}

function normalise(path: string): string {
  let p = path.split(/[?#]/, 1)[0] ?? '';
  if (p === API_PREFIX || p.startsWith(`${API_PREFIX}/`)) p = p.slice(API_PREFIX.length);
  if (p.length > 1 && p.endsWith('/')) p = p.slice(0, -1);
  return p === '' ? '/' : p;
}

function split(path: string): string[] {
  return path === '/' ? [] : path.slice(1).split('/');
}
