/**
 * The zod schema of what a run keeps of the live catalog (live-catalog.ts reads it): the report
 * validates it with the rest of a check's result. Kept apart so that the vitest worker does not
 * load zod (see src/http/exchange-schema.ts).
 */
import { z } from 'zod';

export const LiveCatalogSchema = z
  .object({
    /** Operation names found, sorted. */
    operations: z.array(z.string()),
    /** Per operation, its change kinds, sorted; null when the catalog lists none anywhere. */
    changeKinds: z.record(z.string(), z.array(z.string())).nullable(),
    /** The check whose GET /capabilities answer this was read from. */
    observedBy: z.string(),
  })
  .strict();
export type LiveCatalog = z.infer<typeof LiveCatalogSchema>;
