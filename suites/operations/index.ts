/**
 * The operations suite (seed 4.8 and 4.9): catalog operations and their receipts, the live
 * catalog, agent previews and their scope limit, compute runs, and stored data under /data.
 */
import { SCOPES, type SuiteDef } from '../../src/engine/check.ts';
import { oversizedPreviewNotQuoted, previewQuotes } from './agent.ts';
import { acceptedOperationsListed } from './catalog.ts';
import { computeRunPollable } from './compute.ts';
import { accountRead, personRead, relationshipsListed, unknownRecords } from './data.ts';
import { relatedCollections } from './related.ts';
import { accountFieldsGapFill } from './account-fields.ts';
import { canonicalPersonIdNotApplied, malformedSubmissionRefused } from './submissions.ts';
import { applyUpdateAccepted, receiptPollable, receiptsListed, submittedWorkListed, unknownOperation, unknownReceipt } from './receipts.ts';

export const operationsSuite: SuiteDef = {
  name: 'operations',
  title: 'Operations: receipts, the catalog, agent previews, compute runs and stored data',
  cast: {
    owner: { role: 'owner', scopes: SCOPES },
    // The agent permission of 4.8 and part 5, without the admin scope.
    agent: { role: 'analyst', scopes: ['graph:read', 'graph:write', 'research:run'] },
    // Compute needs the admin scope and an owner or admin role.
    computer: { role: 'owner', scopes: ['admin'] },
  },
  checks: [
    applyUpdateAccepted,
    receiptPollable,
    receiptsListed,
    submittedWorkListed,
    malformedSubmissionRefused,
    canonicalPersonIdNotApplied,
    unknownReceipt,
    unknownOperation,
    acceptedOperationsListed,
    previewQuotes,
    oversizedPreviewNotQuoted,
    computeRunPollable,
    accountRead,
    personRead,
    relationshipsListed,
    relatedCollections,
    accountFieldsGapFill,
    unknownRecords,
  ],
  // Side by side with the receipts, each in a workspace of its own (with the test-control
  // protocol): the agent previews, compute runs and stored data, which read no receipt listing;
  // and the related collections with the gap fill (which submits after every receipt check).
  lanes: [
    [previewQuotes, oversizedPreviewNotQuoted, computeRunPollable, accountRead, personRead, relationshipsListed, unknownRecords],
    [relatedCollections, accountFieldsGapFill],
  ],
};
