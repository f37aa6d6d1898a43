/** Run contexts for the engine tests. */
import { DEFAULT_RUN_RETRY, type RunContext } from '../../../src/engine/context.ts';

export function runContext(over: Partial<RunContext> & { baseUrl: string }): RunContext {
  return {
    keys: [],
    seed: 12345,
    numRuns: 10,
    prefix: 'wgc-test-',
    readOnly: false,
    suites: [],
    http: { timeoutMs: 5000, maxResponseBytes: 1024 * 1024, allowInsecureHttp: false, retry429: DEFAULT_RUN_RETRY },
    ...over,
  };
}
