/**
 * The errors suite (seed part 7): the error envelope and the table constants on every error
 * the suite provokes, unknown routes, malformed and mistyped bodies, non-JSON content types,
 * the rate limit and switched-off capabilities. The checks that change workspace settings
 * (rate limit, capabilities) come last and restore them.
 */
import { SCOPES, type SuiteDef } from '../../src/engine/check.ts';
import { nonJsonContentType } from './content-type.ts';
import { capabilityOff } from './capability.ts';
import { rateLimited } from './limits.ts';
import { rateLimitCounted } from './limit-count.ts';
import { malformedJson } from './malformed.ts';
import { envelopeOnReadRefusals, envelopeOnWriteRefusals } from './refusals.ts';
import { unknownRoutes } from './routes.ts';
import { wrongTypes } from './types.ts';

export const errorsSuite: SuiteDef = {
  name: 'errors',
  title: 'Errors: the envelope, unknown routes, bad bodies, rate limits and unavailable capabilities',
  cast: {
    owner: { role: 'owner', scopes: SCOPES },
    // Lacks graph:read: its definition list is refused with 403.
    noread: { role: 'analyst', scopes: ['graph:write'] },
  },
  checks: [envelopeOnReadRefusals, envelopeOnWriteRefusals, unknownRoutes, malformedJson, wrongTypes, nonJsonContentType, capabilityOff, rateLimited, rateLimitCounted],
  // The bad bodies side by side with the rest, each in a workspace of its own (with the
  // test-control protocol): they change no workspace setting and read nothing others leave.
  lanes: [[malformedJson], [wrongTypes], [rateLimitCounted]],
};
