/**
 * The `lenient` variant of the reference target: the default, with the choices of lenient
 * real-world stacks (pydantic and FastAPI, Jackson and Spring, Go's encoding/json, Rails) where
 * the seed leaves room: request bodies, query parameters and uuids read leniently, validation
 * errors answered 422, moduleKeys read the Rails way, an inclusive cursor, ICPs served at
 * another path, receipts of a fixed layout that complete slowly, null for unset optional output
 * fields, estimates filled in late and a usage ledger that lags. Each choice and why the seed
 * allows it is listed in docs/reference-target.md ("Lenient variant"); each field's comment in
 * choices.ts says what it decides. Only data and pure layout functions here.
 */
import { DEFAULT_CHOICES, type Choices } from './choices.ts';
import type { EnumValue, Receipt } from './model.ts';

/** The quote fields of an agent preview (seed 4.8). */
const QUOTE_FIELDS = ['modelCreditCeiling', 'apiPreviewCredits', 'apiSubmissionCredits', 'analysisLabel', 'model'] as const;

/**
 * A receipt of a fixed layout: the default's fields, and on an agent preview the five quote
 * fields at the top level, null until the preview has run (a typed receipt class with nullable
 * quote fields, serialised as is).
 */
function receipt(r: Receipt): Record<string, unknown> {
  const out: Record<string, unknown> = { ...r };
  if (r.operation !== 'graph.agent_preview') return out;
  const result = r.result !== null && typeof r.result === 'object' ? (r.result as Record<string, unknown>) : {};
  for (const f of QUOTE_FIELDS) out[f] = result[f] ?? null;
  return out;
}

/** Every field of an enum value always rendered, an unset optional one as null (Jackson, Go pointers, pydantic's model_dump). */
const enumValue = (v: EnumValue): Record<string, unknown> => ({ label: v.label, slug: v.slug, description: v.description ?? null, color: v.color ?? null, archived: v.archived });

export const LENIENT: Choices = {
  ...DEFAULT_CHOICES,
  variant: 'lenient',
  // Creates answer 202 Accepted, with the Definition (async-first frameworks answer every write so).
  status: { ...DEFAULT_CHOICES.status, invalid: 422, create: 202 },
  routeBeforeKey: true,
  paths: { '/data/icps': '/data/profiles' },
  bodies: { contentTypes: 'any', trailingBytes: 'ignore', nullOptional: 'absent', scalarStrings: 'coerce' },
  uuids: 'hyphenated-or-plain',
  queryBooleans: 'lenient',
  definitions: { ...DEFAULT_CHOICES.definitions, emptyText: 'null', estimating: { afterMs: 1_000, low: 2, high: 12, lastRun: 0 } },
  paging: { ...DEFAULT_CHOICES.paging, moduleKeysForms: 'brackets-last-wins', cursor: 'inclusive' },
  // Polls never hurry a receipt: it completes 4 s after submission, queued until then.
  receipts: { pollsToComplete: Number.POSITIVE_INFINITY, executionDelayMs: 4_000, slowOperations: {} },
  ledgerLagMs: 2_500,
  layout: { ...DEFAULT_CHOICES.layout, receipt, enumValue },
};
