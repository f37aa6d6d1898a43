/**
 * The auth suite (seed part 5, 2.4/4.2 and part 9): how keys are sent, rejected and
 * re-checked, the workspace binding, secrecy, GET /me and operator grant changes.
 * Checks that pause a workspace use one of their own; provisioned members, keys and
 * workspaces are removed by each check's clean-up.
 */
import { SCOPES, type SuiteDef } from '../../src/engine/check.ts';
import { apiKeyEveryEndpoint, apiKeyReads, apiKeyWrites } from './api-key-header.ts';
import { bearerAccepted, capabilitiesAnswer, vendorPrefix } from './basics.ts';
import { foreignIds } from './foreign-ids.ts';
import { foreignWork } from './foreign-work.ts';
import { grantChange, grantRemovalKeepsEffects } from './grants.ts';
import { meReportsKey, meShape } from './me.ts';
import { noSecretInResponses } from './no-secret.ts';
import { malformedKeyRejected, missingKey, unknownKeyRejected } from './rejection.ts';
import { deletedWorkspaceKey, departedMember, disabledKey, pausedWorkspace, revokedKey, revokedStaysRevoked } from './standing.ts';
import { workspaceFromKey } from './workspace-from-key.ts';

export const authSuite: SuiteDef = {
  name: 'auth',
  title: 'Authentication: key headers, rejection, standing, workspace binding, secrecy, GET /me and grants',
  cast: {
    // Every scope; exactness does not matter for what it is used for (reads of every family, creates).
    owner: { role: 'owner', scopes: SCOPES, exact: false },
    // Lists definitions and reads data, nothing else.
    reader: { role: 'owner', scopes: ['graph:read'] },
    // Writes definitions but cannot list them: foreign-id writes are refused for the id, not the scope.
    admin: { role: 'owner', scopes: ['admin'] },
  },
  checks: [
    bearerAccepted,
    capabilitiesAnswer,
    apiKeyReads,
    apiKeyWrites,
    apiKeyEveryEndpoint,
    vendorPrefix,
    missingKey,
    unknownKeyRejected,
    malformedKeyRejected,
    revokedKey,
    revokedStaysRevoked,
    disabledKey,
    departedMember,
    pausedWorkspace,
    deletedWorkspaceKey,
    workspaceFromKey,
    foreignIds,
    foreignWork,
    noSecretInResponses,
    meShape,
    meReportsKey,
    grantChange,
    grantRemovalKeepsEffects,
  ],
  // Side by side, each in a workspace of its own (with the test-control protocol); the key
  // headers and rejections stay in the suite's workspace, but for X-API-Key's, which sweep
  // every endpoint (a lane of their own keeps the suite's longest lane near the others').
  lanes: [
    [revokedKey, revokedStaysRevoked, disabledKey, departedMember],
    [pausedWorkspace, deletedWorkspaceKey],
    [foreignIds, foreignWork],
    [noSecretInResponses, meShape, workspaceFromKey],
    [meReportsKey, grantChange, grantRemovalKeepsEffects],
    [apiKeyReads, apiKeyWrites, apiKeyEveryEndpoint],
  ],
};
