/**
 * Which clauses need the test-control protocol (and its usage ledger), per the catalog's
 * `observe` fields: shown in the certification guide so a reimplementer sees what offering the
 * protocol buys.
 */
import type { Catalog } from '../catalog/load.ts';
import { AREAS, areaOf } from '../catalog/types.ts';
import { table } from './markdown.ts';

/** A table of areas and their clauses that need control, each linked to docs/clauses.md. */
export function renderControlClauses(catalog: Catalog): string {
  const observable = catalog.clauses.filter((c) => !c.unobservable);
  const needing = observable.filter((c) => c.observe.control || c.observe.ledger);
  const ledger = needing.filter((c) => c.observe.ledger);
  const link = (id: string): string => `[${id}](../clauses.md#${id.toLowerCase()})`;
  const rows = AREAS.map((a) => needing.filter((c) => areaOf(c.id) === a))
    .filter((list) => list.length > 0)
    .map((list) => [areaOf(list[0]!.id), String(list.length), list.map((c) => (c.observe.ledger ? `${link(c.id)} (ledger)` : link(c.id))).join(', ')]);
  return [
    `The catalog marks **${needing.length} of the ${observable.length} observable clauses** as needing the test-control protocol (${ledger.length} of`,
    'them its usage ledger). Without it, expect them to be reported not observable (supplied keys',
    'stand in for some), and a full certification is out of reach:',
    '',
    table(['Area', 'Clauses', 'Which'], rows, ['l', 'r', 'l']),
  ].join('\n');
}
