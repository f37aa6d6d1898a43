/**
 * The idempotency suite: the Idempotency-Key of seed 4.1 on its five endpoints (POST
 * /definitions, PATCH /definitions/{id}, archive, merge-value, POST /operations). One key, an
 * owner's with admin, graph:read (to count what was created) and graph:write (for
 * graph.apply_update); it may hold more.
 */
import type { SuiteDef } from '../../src/engine/check.ts';
import { concurrentSameKey, keyAfterRefusal, keyReuseConflict } from './conflict.ts';
import { conflictEveryEndpoint, keyBoundsEveryEndpoint } from './every-endpoint.ts';
import { keyBoundsAccepted, keyCharset, keyTooLong } from './keys.ts';
import { operationReplay } from './operations.ts';
import { archiveReplay, createReplay, mergeReplay, updateReplay } from './replay.ts';

export const suite: SuiteDef = {
  name: 'idempotency',
  title: 'Idempotency-Key: replays, conflicts, key bounds, concurrency',
  cast: {
    admin: { role: 'owner', scopes: ['admin', 'graph:read', 'graph:write'], exact: false },
  },
  checks: [
    // IDEM-001..003: a keyed call succeeds, its replay is the original answer and performs nothing.
    createReplay,
    updateReplay,
    archiveReplay,
    mergeReplay,
    operationReplay,
    // IDEM-004, IDEM-008, IDEM-009: one key, other inputs or other senders.
    keyReuseConflict,
    concurrentSameKey,
    keyAfterRefusal,
    // IDEM-005..007: the key's own bounds.
    keyTooLong,
    keyCharset,
    keyBoundsAccepted,
    // The same rules on the four other endpoints.
    conflictEveryEndpoint,
    keyBoundsEveryEndpoint,
  ],
  // Side by side with the rest, each in a workspace of its own (with the test-control
  // protocol): one key with other inputs or senders, each key bound, and each rule on the
  // other endpoints; the replays stay in the suite's workspace.
  lanes: [[keyReuseConflict, concurrentSameKey, keyAfterRefusal], [keyTooLong], [keyCharset], [keyBoundsAccepted], [conflictEveryEndpoint], [keyBoundsEveryEndpoint]],
};
