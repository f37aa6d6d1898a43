/**
 * The clause catalog model. A clause is one normative statement of the API document,
 * held once, as data, with a stable id. Tests point at clause ids; they never restate rules.
 */
import { z } from 'zod';

/** Area prefixes of clause ids. The prefix is part of the id and never changes. */
export const AREAS = [
  'SVC', // part 1: service-wide rules
  'DEF', // parts 2.1-2.2, 3, 4.3-4.7: definitions
  'ENV', // 2.3 and 8: collection envelope
  'ME', // 2.4, 4.2: key introspection
  'TRACE', // 2.6, 2.7: decision trace
  'IDEM', // 4.1: idempotency
  'OPS', // 4.8, 4.9: catalog operations and other endpoints
  'AUTH', // 5.1-5.4, 5.9: authentication
  'SCOPE', // 5.5 and the permission table: scopes
  'ROLE', // 5.6 and the permission table: workspace roles
  'GRANT', // 5.7-5.8: grant changes
  'ERR', // 7: error envelope
  'PAGE', // 8: paging
  'BILL', // 8: billing
  'LIMIT', // 8: other limits
  'DATA', // 4.9: stored graph data, traces and decision inputs
  'VER', // 9: versioning
] as const;
export type Area = (typeof AREAS)[number];

export const LEVELS = ['MUST', 'SHOULD'] as const;
export type Level = (typeof LEVELS)[number];

/** What observing a clause takes on a target. */
export const ObservationSchema = z
  .object({
    /** Free text: which keys (scopes, role) the check needs, e.g. "admin scope held by an analyst". */
    keys: z.string().min(1),
    /** The test-control protocol is needed (provisioning members, revoking, pausing...). */
    control: z.boolean(),
    /** The usage ledger (control GET /workspaces/{ws}/usage) is needed. */
    ledger: z.boolean(),
    /** The check sends mutations (so it is disabled by --read-only). */
    mutation: z.boolean(),
  })
  .strict();

/** A reading the document allows where it is ambiguous: every accepted behaviour is listed. */
export const AmbiguitySchema = z
  .object({
    question: z.string().min(1),
    accepted: z.array(z.string().min(1)).min(2),
    /**
     * How the suite meets the question where that needs saying: which checks depend on it, or a
     * bound of the suite's own (a time it waits) where the seed sets none, and how a target
     * beyond that bound is reported.
     */
    note: z.string().min(1).optional(),
  })
  .strict();

export const ClauseSchema = z
  .object({
    id: z.string().regex(/^[A-Z]+-\d{3}$/, 'an area prefix, a dash and three digits, e.g. AUTH-001'),
    level: z.enum(LEVELS),
    /** Seed reference: part and rule or table row, e.g. "5 rule 4" or "4.4 table: name". */
    ref: z.string().min(1),
    /** The requirement in one sentence, in the project's own words. */
    statement: z.string().min(1),
    observe: ObservationSchema,
    /** Present when no client can observe the clause; the reason why. */
    unobservable: z.string().min(1).optional(),
    /** One open question, or several when the clause leaves more than one open. */
    ambiguity: z.union([AmbiguitySchema, z.array(AmbiguitySchema).min(2)]).optional(),
  })
  .strict();

export type Clause = z.infer<typeof ClauseSchema>;
export type Observation = z.infer<typeof ObservationSchema>;
export type Ambiguity = z.infer<typeof AmbiguitySchema>;

/** The open questions of a clause, in catalog order (none when the seed leaves it no room). */
export function ambiguitiesOf(clause: Clause): readonly Ambiguity[] {
  if (clause.ambiguity === undefined) return [];
  return Array.isArray(clause.ambiguity) ? clause.ambiguity : [clause.ambiguity];
}

/** The area of a clause id: the letters before the dash. */
export function areaOf(id: string): Area {
  return id.slice(0, id.indexOf('-')) as Area;
}
