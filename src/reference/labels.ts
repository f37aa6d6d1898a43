/**
 * Labels: a definition's enum value assigned to an account or an account person. Set by the
 * label change of graph.apply_update and by the control protocol's POST /workspaces/{ws}/labels;
 * rewritten by merge-value. An exclusive definition gives an entity one value; a multi one, a
 * value at most once.
 */
import type { Account, AccountPerson, DefinitionRecord, LabelAssignment, Workspace } from './model.ts';

// Stryker disable all: labels are set only through the test-control protocol's addition (4.8 shows no label change kind) and read only through it; which labels an assignment replaces and how an entity is found are the addition's own, and merge-value's rewritten count is bounded, not compared (DEF-022's reading)
/** The entity a label may go on: an account, or an account-membership record for a contact. */
export function labelledEntity(ws: Workspace, kind: 'account' | 'contact', id: string): Account | AccountPerson | undefined {
  return kind === 'account' ? ws.accounts.get(id) : ws.accountPeople.get(id);
}

/** Assigns `slug` of `rec` to the entity, replacing what the definition's cardinality rules out. */
export function assignLabel(ws: Workspace, rec: DefinitionRecord, entity: { kind: 'account' | 'contact'; id: string }, slug: string, id: string, at: string): LabelAssignment {
  const exclusive = rec.def.cardinality !== 'multi';
  for (const [labelId, l] of ws.labels) {
    if (l.definitionId === rec.def.id && l.entityId === entity.id && (exclusive || l.slug === slug)) ws.labels.delete(labelId);
  }
  const label: LabelAssignment = { id, definitionId: rec.def.id, entityKind: entity.kind, entityId: entity.id, slug, definitionRevision: rec.revision, at };
  ws.labels.set(id, label);
  return label;
}
// Stryker restore all
