/**
 * The layering of the code, kept rather than remembered: every relative import of src/,
 * suites/ and reporters/ goes from a layer to the same layer or one below it, and no file
 * imports itself through a chain of others (no cycle). The layers, lowest first:
 *
 *   vocabulary (src/vocabulary.ts, imports nothing of the project)
 *   < http, spec, catalog, generators, config
 *   < control, target
 *   < engine
 *   < suites, report, reference
 *   < reporters, selftest, bench, docs
 *   < cli
 *
 * Type-only imports count: a type is part of the contract between the layers too.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const LAYERS: readonly (readonly string[])[] = [
  ['src/vocabulary.ts'],
  ['src/http', 'src/spec', 'src/catalog', 'src/generators', 'src/config'],
  ['src/control', 'src/target'],
  ['src/engine'],
  ['suites', 'src/report', 'src/reference'],
  ['reporters', 'src/selftest', 'src/bench', 'src/docs'],
  ['src/cli'],
];

/** The layer of a project file (by its path from the root), or undefined outside the layered code. */
function layerOf(file: string): number | undefined {
  const i = LAYERS.findIndex((l) => l.some((p) => file === p || file.startsWith(`${p}/`)));
  return i < 0 ? undefined : i;
}

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(ROOT, dir))) {
    const path = `${dir}/${name}`;
    if (statSync(join(ROOT, path)).isDirectory()) out.push(...filesUnder(path));
    else if (/\.(ts|mts|mjs)$/.test(name)) out.push(path);
  }
  return out;
}

/** Relative imports of a file (static, type-only, re-exports and dynamic), as project paths. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const specs = [
    ...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'"`;]*?from\s+'(\.[^']+)'/g),
    ...text.matchAll(/import\(\s*'(\.[^']+)'\s*\)/g),
    ...text.matchAll(/(?:^|\n)import\s+'(\.[^']+)'/g),
  ].map((m) => m[1]!);
  return specs.map((s) => relative(ROOT, resolve(dirname(join(ROOT, file)), s)).replace(/\\/g, '/'));
}

const files = ['src', 'suites', 'reporters'].flatMap(filesUnder);
const graph = new Map(files.map((f) => [f, importsOf(f).filter((t) => files.includes(t))]));

describe('layering', () => {
  it('covers every file of src/, suites/ and reporters/', () => {
    expect(files.filter((f) => layerOf(f) === undefined)).toEqual([]);
    expect(files.length).toBeGreaterThan(200);
  });

  it('imports only from the same layer or below', () => {
    const upward = [...graph].flatMap(([from, tos]) => tos.filter((to) => layerOf(to)! > layerOf(from)!).map((to) => `${from} -> ${to}`));
    expect(upward).toEqual([]);
  });

  it('the vocabulary imports nothing of the project', () => {
    expect(importsOf('src/vocabulary.ts')).toEqual([]);
  });

  it('has no import cycle', () => {
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const path: string[] = [];
    const visit = (f: string): void => {
      state.set(f, 'open');
      path.push(f);
      for (const t of graph.get(f) ?? []) {
        if (state.get(t) === 'open') cycles.push([...path.slice(path.indexOf(t)), t].join(' -> '));
        else if (!state.has(t)) visit(t);
      }
      path.pop();
      state.set(f, 'done');
    };
    for (const f of files) if (!state.has(f)) visit(f);
    expect(cycles).toEqual([]);
  });
});
