/**
 * The roles suite: workspace roles on top of scopes (seed part 5 rule 6 and its table).
 * Compute needs an owner or admin role besides the admin scope; agent operations need an
 * owner, admin or analyst role and no admin scope; a role change counts from the next call.
 */
import type { SuiteDef } from '../../src/engine/check.ts';
import { memberRefused, previewByRole } from './agent.ts';
import { CAST } from './cast.ts';
import { computeAllowsOwnerAndAdmin, computeRefusesAnalyst } from './compute.ts';
import { roleChangeAgent, roleChangeCompute } from './role-change.ts';
import { labelChangeNeedsAdminAndRole } from './labels.ts';

/** The roles suite definition (found by src/engine/discover.ts through suites/roles.test.ts). */
export const rolesSuite: SuiteDef = {
  name: 'roles',
  title: 'Roles: workspace roles gate compute and agent operations on top of scopes',
  cast: CAST,
  checks: [computeRefusesAnalyst, computeAllowsOwnerAndAdmin, previewByRole, memberRefused, roleChangeCompute, roleChangeAgent, labelChangeNeedsAdminAndRole],
  // Side by side, each in a workspace of its own (with the test-control protocol): the role
  // changes, whose keys each check makes for itself, and the label change, which makes its own
  // account; the gates of the cast's keys stay in the suite's workspace. Nothing one leaves is
  // read by another, and against a distant target the seven one after another were one of the
  // run's longest lanes.
  lanes: [[roleChangeCompute, roleChangeAgent], [labelChangeNeedsAdminAndRole]],
};
