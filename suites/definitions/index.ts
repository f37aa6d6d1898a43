/**
 * The definitions suite: definition writes and reads (seed 2.1, 2.2, 3, 4.3-4.7), decision
 * traces on those writes (2.6, 2.7 rule 3) and the read-only rule (part 1 rule 5). The
 * moduleKeys filter (DEF-023) is checked by the pagination suite.
 */
import type { SuiteDef } from '../../src/engine/check.ts';
import { archiveDefinition, archivedStaysArchived } from './archive.ts';
import { createProperty, unknownProperties, workspaceId } from './create.ts';
import { archiveEdges, createEdges, mergeEdges, updateEdges } from './edges.ts';
import { malformedId, unknownId } from './ids.ts';
import { mergeValueLabels } from './labels.ts';
import { mergeValueSlugs } from './merge.ts';
import { readsChangeNothing, traceReadsChangeNothing } from './reads.ts';
import { decisionInputReferences } from './references.ts';
import { updatedAtMoves } from './timestamps.ts';
import { validTraces } from './traces.ts';
import { mergeValue, patchProperty } from './update.ts';
import { archiveViolations, createViolations, mergeViolations, updateViolations } from './violations.ts';

/** The suite definition: its cast and its checks. */
export const suite: SuiteDef = {
  name: 'definitions',
  title: 'Definitions and decision traces',
  cast: {
    // Owner with admin (writes) and graph:read (reading back); other scopes do not matter.
    admin: { role: 'owner', scopes: ['admin', 'graph:read'], exact: false },
    // A read-only key: reads through it must change nothing either (used when supplied).
    reader: { role: ['analyst', 'owner', 'admin', 'member'], scopes: ['graph:read'] },
  },
  // Order matters for cost only: the checks that walk the listing run while the workspace is
  // small; the generated (large) definitions of the property checks come last.
  checks: [
    workspaceId,
    unknownProperties,
    createViolations,
    updateViolations,
    archiveViolations,
    mergeViolations,
    mergeValue,
    mergeValueSlugs,
    mergeValueLabels,
    updatedAtMoves,
    archiveDefinition,
    archivedStaysArchived,
    unknownId,
    malformedId,
    readsChangeNothing,
    traceReadsChangeNothing,
    validTraces,
    decisionInputReferences,
    createEdges,
    updateEdges,
    archiveEdges,
    mergeEdges,
    patchProperty,
    createProperty,
  ],
  // Side by side with the rest, each in a workspace of its own (with the test-control
  // protocol): the single-bound violations, the reads that must change nothing (their walks see
  // only their own definitions), the valid writes of the edges and the properties, which
  // walk no listing and leave definitions no check above reads, merge-value's edges and labels
  // and the decision-input references (each reads back only its own definitions), and the
  // updated_at check, which mostly waits.
  lanes: [
    [createViolations, updateViolations, archiveViolations, mergeViolations],
    [readsChangeNothing, traceReadsChangeNothing],
    [validTraces, createEdges],
    [mergeValueSlugs, mergeValueLabels, decisionInputReferences],
    [updatedAtMoves],
    [updateEdges],
    [archiveEdges, mergeEdges],
    [patchProperty],
    [createProperty],
  ],
};
