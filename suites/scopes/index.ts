/**
 * The scopes suite: one check per permission-table row of seed part 5 (and the catalog
 * operations of 4.8-4.9), each sending every key of a cast of owner keys with exactly one
 * scope, no scope, every scope, and the agent scopes minus each one. Which scopes a row
 * requires is read from specs/openapi.yaml (suites/scopes/matrix.ts).
 */
import type { SuiteDef } from '../../src/engine/check.ts';
import { definitionCreate, definitionList } from './definition-list-create.ts';
import { definitionArchive, definitionMerge, definitionUpdate } from './definition-writes.ts';
import { CAST } from './matrix.ts';
import { agentPreview, agentRun, applyUpdate } from './operations.ts';
import { compute, query } from './query-compute.ts';

/** The scopes suite definition (found by src/engine/discover.ts through suites/scopes.test.ts). */
export const scopesSuite: SuiteDef = {
  name: 'scopes',
  title: 'Scopes: each permission row lets through exactly the keys holding its scopes',
  cast: CAST,
  checks: [definitionList, definitionCreate, definitionUpdate, definitionArchive, definitionMerge, query, compute, agentPreview, agentRun, applyUpdate],
  // The rows are independent: the definition rows in the suite's workspace, the others side by
  // side in workspaces of their own (with the test-control protocol).
  lanes: [
    [query, compute],
    [agentPreview, agentRun, applyUpdate],
  ],
};
