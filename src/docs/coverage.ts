/**
 * docs/coverage.md: what the suite sends at the edges of every bound, per operation, and the
 * check that judges each: generated from specs/openapi.yaml through the same edges the checks
 * send (src/generators/edges.ts), so a bound the document gains shows up here, covered or
 * with its reason.
 */
import { generatedBanner, cell, code, table } from './markdown.ts';
import type { LoadedSpec } from '../spec/load.ts';
import type { SuiteDef } from '../engine/check.ts';
import { renderRuleCells } from './rule-cells.ts';
import { edgesOf, VALID_ELSEWHERE } from '../../suites/definitions/edges.ts';
import { WRITES, type Write } from '../../suites/definitions/violation-map.ts';

/** How the edges of one bound are sent: the valid side, the invalid side. */
function sides(write: Write, pointer: string, keyword: string, valid: number, invalid: number, repeats: boolean): [string, string] {
  const check = code(`definitions/${write}-edges`);
  const elsewhere = VALID_ELSEWHERE[write].find((p) => pointer === p || pointer.startsWith(`${p}/`));
  const validSide = valid === 0 ? '–' : elsewhere ? `not sent: must name what the server issued (${code(elsewhere)})` : `${valid} value${valid === 1 ? '' : 's'}, ${check}`;
  const special = write === 'update' && pointer === '/archiveEnumValueSlugs' && keyword === 'maxItems';
  const invalidSide =
    invalid === 0 ? '–' : repeats ? `repeats an item: ${code(`definitions/${write}-violations`)}` : `${invalid} value${invalid === 1 ? '' : 's'}, ${check}${special ? ' (real slugs)' : ''}`;
  return [validSide, invalidSide];
}

/** The edges page. */
export function renderCoveragePage(spec: LoadedSpec, suites: readonly SuiteDef[]): string {
  const out: string[] = [generatedBanner('specs/openapi.yaml and suites/definitions/edges.ts (src/docs/coverage.ts)'), '', '# Coverage of the edges', ''];
  out.push(
    'For every bound of every request field of the definition writes, the suite sends the last valid value and the first invalid one on each side, every run (`src/generators/edges.ts`): the valid ones must be accepted and are judged as any valid write is; the invalid ones must be refused as invalid (400, or 422 with `defined: false`) and store or change nothing. Generated values (fast-check) cover the interior and the mixes on top. `wgc selftest --family bounds` moves each of these bounds by one in the reference, each way, and shows the suite notices (docs/self-test.md).',
    '',
  );
  let bounds = 0;
  for (const write of Object.keys(WRITES) as Write[]) {
    const op = spec.operation(WRITES[write].operationId);
    const all = edgesOf(spec, write);
    const groups = new Map<string, { pointer: string; keyword: string; valid: number; invalid: number; repeats: boolean }>();
    for (const e of all) {
      const k = `${e.path} ${e.keyword}`;
      const g = groups.get(k) ?? { pointer: e.path, keyword: e.keyword, valid: 0, invalid: 0, repeats: false };
      if (e.valid) g.valid++;
      else g.invalid++;
      if (!e.valid && e.repeatsItems) g.repeats = true;
      groups.set(k, g);
    }
    bounds += groups.size;
    out.push(`## ${op.method} ${op.path} (${code(WRITES[write].operationId)})`, '');
    out.push(
      table(
        ['Field', 'Bound', 'Last valid', 'First invalid'],
        [...groups.values()].map((g) => [code(g.pointer || '(body)'), cell(g.keyword), ...sides(write, g.pointer, g.keyword, g.valid, g.invalid, g.repeats)]),
      ),
      '',
    );
  }
  out.push(`${bounds} bounds in all.`, '');
  out.push(
    '## Query parameters and headers',
    '',
    'The edges of the query parameters of `GET /definitions` (`limit` 0, 1, 200, 201 and non-integers; `cursor` malformed; `includeArchived` and `moduleKeys` out of their enums) are sent by the pagination suite (`pagination/limits-accepted`, `pagination/limits-refused`, `pagination/cursor-refused`, `pagination/include-archived-param`, `pagination/module-keys-refused`), and those of the `Idempotency-Key` header (1 and 128 characters, 129, a space, characters outside visible ASCII) on each of the five endpoints of 4.1 by the idempotency suite (`idempotency/key-*`, `idempotency/key-bounds-every-endpoint`).',
    '',
    renderRuleCells(spec, suites),
  );
  return out.join('\n');
}
