/**
 * The pagination suite: the collection envelope, limit, cursor and filters of GET /definitions
 * (seed 2.3, 4.3, part 8). Read-only checks use a key with exactly graph:read; checks that
 * need items of their own create them with an owner's admin + graph:read key. Nothing assumes
 * an empty workspace: the visible set is read from walks.
 */
import type { SuiteDef } from '../../src/engine/check.ts';
import { cursorIsBoundary, unknownCursorIsBoundary } from './boundary.ts';
import { envelope } from './envelope.ts';
import { moduleFilterBeforeLimit, visibilityBeforeLimit } from './filters.ts';
import { moduleKeysFilter, moduleKeysRefused } from './module-keys.ts';
import { fullPages, workspaceFilterBeforeLimit } from './full-pages.ts';
import { defaultPageSize } from './page-size.ts';
import { cursorRefused, includeArchivedParam, limitsAccepted, limitsRefused } from './params.ts';
import { walkOrderAndCompleteness } from './walks.ts';

export const suite: SuiteDef = {
  name: 'pagination',
  title: 'Collection paging of GET /definitions: envelope, limit, cursor, ordering, filters',
  cast: {
    writer: { role: 'owner', scopes: ['admin', 'graph:read'] },
    reader: { role: ['analyst', 'owner', 'admin', 'member'], scopes: ['graph:read'] },
  },
  checks: [
    // The parameters: read-only.
    limitsAccepted,
    limitsRefused,
    cursorRefused,
    includeArchivedParam,
    // PAGE-001 first among the checks that create: the default page is then read before any
    // archived leftovers of the other checks exist.
    defaultPageSize,
    // ENV-001 once the workspace holds more than a page: its cursors are then there to judge
    // (an empty workspace shows none, and a pass that saw no cursor is none).
    envelope,
    walkOrderAndCompleteness,
    cursorIsBoundary,
    unknownCursorIsBoundary,
    visibilityBeforeLimit,
    // moduleKeys: its wire forms (DEF-023), the filter before the limit, invalid keys.
    moduleKeysFilter,
    moduleFilterBeforeLimit,
    moduleKeysRefused,
    // Last: they fill the workspace past a page of 200, which the walks above would pay for.
    fullPages,
    workspaceFilterBeforeLimit,
  ],
  // The read-only checks side by side with the rest, in a workspace of their own (with the
  // test-control protocol): a page costs its credit whatever it lists, and they leave nothing.
  // The others stay together: each leaves definitions (archived ones too) that the full pages
  // count towards the 201 they need, which would otherwise be created.
  lanes: [[limitsAccepted, limitsRefused, cursorRefused, includeArchivedParam]],
};
