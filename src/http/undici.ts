/**
 * The two classes of undici the transport builds on (Agent, EnvHttpProxyAgent), with the request
 * API it calls on them, loaded from their own files. undici's index loads all of undici (fetch,
 * WebSocket, caches, mocks, interceptors): 0.12-0.15 s of every run's start-up on the 2-core
 * host, paid by the command and again by its vitest worker, against 0.04 s for these files. The
 * index does exactly this with them (requires the same files, adds the API of lib/api to
 * Dispatcher's prototype), so the classes are the very ones `import { Agent } from 'undici'`
 * gives. A release that moves a file falls back to the index.
 */
import { createRequire } from 'node:module';
import type * as Undici from 'undici';

const require = createRequire(import.meta.url);

function load(): Pick<typeof Undici, 'Agent' | 'EnvHttpProxyAgent'> {
  try {
    const Dispatcher = require('undici/lib/dispatcher/dispatcher.js') as { prototype: Record<string, unknown> };
    if (typeof Dispatcher.prototype['request'] !== 'function') Object.assign(Dispatcher.prototype, require('undici/lib/api/index.js'));
    return {
      Agent: require('undici/lib/dispatcher/agent.js') as typeof Undici.Agent,
      EnvHttpProxyAgent: require('undici/lib/dispatcher/env-http-proxy-agent.js') as typeof Undici.EnvHttpProxyAgent,
    };
  } catch {
    return require('undici') as typeof Undici;
  }
}

export const { Agent, EnvHttpProxyAgent } = load();
