/**
 * The x-wgc-* extensions of specs/openapi.yaml, as zod schemas: the loader rejects a
 * document whose extensions are missing or malformed, so suites can trust them.
 * Their meaning is documented in specs/README.md.
 */
import { z } from 'zod';
import { ROLES, SCOPES } from '../vocabulary.ts';

export const AccessRuleSchema = z
  .object({
    scopes: z.array(z.enum(SCOPES)).nullable(),
    roles: z.array(z.enum(ROLES)).nullable(),
    note: z.string().min(1).optional(),
  })
  .strict();

export const BillingSchema = z.enum(['free', 'billed']);

// Only `true` is meaningful; non-idempotent operations simply omit the extension.
export const IdempotentSchema = z.literal(true).optional();

export const AmbiguitySchema = z.object({ question: z.string().min(1), accepted: z.array(z.string().min(1)).min(2) }).strict();

export const CatalogOperationSchema = AccessRuleSchema.extend({
  via: z.string().regex(/^(GET|POST|PUT|PATCH|DELETE) \//, 'a method and a path, e.g. "POST /operations"'),
  arguments: z.array(z.string().min(1)).optional(),
  quotes: z.array(z.string().min(1)).optional(),
}).strict();

export const CatalogOperationsSchema = z.record(z.string().regex(/^[a-z]+\.[a-z_]+$/), CatalogOperationSchema);

/**
 * Parses `value` with `schema`, or returns a one-line description of the first problems
 * ("scopes.0: Invalid option ...") for the caller to prefix with the place in the file.
 */
export function parseExtension<T>(schema: z.ZodType<T>, value: unknown): { ok: true; value: T } | { ok: false; problem: string } {
  const result = schema.safeParse(value);
  if (result.success) return { ok: true, value: result.data };
  const problem = result.error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.length ? issue.path.join('.') + ': ' : ''}${issue.message}`)
    .join('; ');
  return { ok: false, problem };
}
