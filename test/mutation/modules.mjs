/** The modules `npm run mutation` mutates (test/mutation/run.mjs), shared with the page renderer. */
/**
 * The reference's behaviour modules, by name: every module whose code decides what a client
 * observes. Left out: the conformant variants (alternative.ts, lenient.ts, extended.ts,
 * variants.ts: a mutant there is a variant that may or may not still be conformant, not a
 * reference bug), the faults (faults.ts, sequence-faults.ts: inert with no fault on), the
 * entry point (index.ts: starts and stops the server) and route.ts (types only).
 */
export const MODULES = {
  validation: 'src/reference/validate.ts',
  authentication: 'src/reference/auth.ts',
  idempotency: 'src/reference/idempotency.ts',
  billing: 'src/reference/billing.ts',
  paging: 'src/reference/query.ts',
  definitions: 'src/reference/definitions.ts',
  pipeline: 'src/reference/server.ts',
  router: 'src/reference/router.ts',
  http: 'src/reference/http.ts',
  errors: 'src/reference/errors.ts',
  operations: 'src/reference/operations.ts',
  'operation-shapes': 'src/reference/opdef.ts',
  executor: 'src/reference/executor.ts',
  'agent-ops': 'src/reference/op-agent.ts',
  'graph-ops': 'src/reference/op-graph.ts',
  'crm-ops': 'src/reference/op-crm.ts',
  'crm-reads': 'src/reference/crm.ts',
  compute: 'src/reference/compute.ts',
  data: 'src/reference/data.ts',
  'graph-reads': 'src/reference/graph.ts',
  traces: 'src/reference/trace.ts',
  introspection: 'src/reference/introspection.ts',
  labels: 'src/reference/labels.ts',
  'field-catalog': 'src/reference/fields.ts',
  'rate-limit': 'src/reference/ratelimit.ts',
  control: 'src/reference/control.ts',
  records: 'src/reference/records.ts',
  store: 'src/reference/store.ts',
  model: 'src/reference/model.ts',
  choices: 'src/reference/choices.ts',
};
