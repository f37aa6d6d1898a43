/**
 * The billing suite (seed part 8, billing): what each kind of call costs, measured on the
 * usage ledger of the suite's own workspace (test-control protocol). Checks run one after
 * another in this order and share the workspace; each ledger entry is attributed to the call
 * it names (src/engine/ledger.ts). The two checks whose set-up makes a billed call
 * come first: waiting for those charges shows whether the ledger lags, and by how much, before
 * the checks of free calls decide how long to watch for a wrong charge. The rate-limit check
 * comes last because it throttles the workspace.
 */
import { SCOPES, type SuiteDef } from '../../src/engine/check.ts';
import { billedCallsCostOne } from './billed.ts';
import { capabilitiesFree, computePollingFree, meFree, operationsPollingFree } from './free.ts';
import { rateLimitedFree, refusalsFree, unauthorizedFree, unavailableFree } from './refusals.ts';
import { refusalsFreeEveryEndpoint } from './every-endpoint.ts';
import { previewFee, replayFree } from './replay-preview.ts';
import { usageSurface } from './surface.ts';

export const billingSuite: SuiteDef = {
  name: 'billing',
  title: 'Billing: billed and free calls, unbilled failures, replays and the preview fee',
  cast: {
    owner: { role: 'owner', scopes: SCOPES },
    // No admin: its definition create is refused with 403.
    reader: { role: 'analyst', scopes: ['graph:read'] },
  },
  checks: [
    operationsPollingFree,
    computePollingFree,
    meFree,
    capabilitiesFree,
    billedCallsCostOne,
    refusalsFree,
    refusalsFreeEveryEndpoint,
    replayFree,
    usageSurface,
    previewFee,
    unauthorizedFree,
    unavailableFree,
    rateLimitedFree,
  ],
  // Side by side, each in a workspace of its own (with the test-control protocol), each led by
  // a check whose billed calls show whether its ledger lags before free calls are watched
  // (refusals-free concludes its refusals after its own billed create); the others stay in the
  // suite's workspace in the order above.
  lanes: [[computePollingFree, replayFree], [billedCallsCostOne], [refusalsFree], [usageSurface, previewFee, unavailableFree, rateLimitedFree]],
};
