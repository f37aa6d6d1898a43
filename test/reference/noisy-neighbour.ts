/**
 * A noisy neighbour: somebody else working in the workspace a keys-only run uses, the way people,
 * jobs and earlier runs do on a shared staging target. Through its own key it creates, patches
 * and archives definitions at a steady pace and lists them, until stopped. Its records carry a
 * prefix of their own ("neighbour-"), never the run's.
 */
import { createHttpClient } from '../../src/http/client.ts';
import { SecretRegistry } from '../../src/http/redact.ts';
import type { KeyHandle } from '../../src/engine/check.ts';

const MODULES = ['customers', 'partners', 'investors', 'recruiting', 'advisors', 'vendors'] as const;

/** The most live definitions of its own the neighbour keeps (a workspace that does not grow without bound). */
const MAX_LIVE = 150;

/** What the neighbour did; `answered2xx` calls were all billable (1 credit each on the reference). */
export interface NeighbourStats {
  creates: number;
  patches: number;
  archives: number;
  lists: number;
  answered2xx: number;
  errors: number;
}

export interface NoisyNeighbour {
  /** Stops after the request in flight; resolves with what it did. */
  stop(): Promise<NeighbourStats>;
}

/**
 * Starts writing to the workspace of `secret` (a key with admin and graph:read) every
 * `intervalMs`, cycling through create, patch, list, archive.
 */
export function startNoisyNeighbour(baseUrl: string, secret: string, opts: { intervalMs?: number; seed?: number } = {}): NoisyNeighbour {
  const secrets = new SecretRegistry();
  secrets.add(secret, 'neighbour');
  const api = createHttpClient({ baseUrl, timeoutMs: 10_000, secrets, idPrefix: 'neighbour' });
  const key: KeyHandle = { name: 'neighbour', secret, role: 'owner', scopes: ['graph:read', 'admin'] };
  const interval = opts.intervalMs ?? 15;
  let n = opts.seed ?? 0;
  const live: string[] = [];
  const stats: NeighbourStats = { creates: 0, patches: 0, archives: 0, lists: 0, answered2xx: 0, errors: 0 };
  let stopped = false;
  const step = async (): Promise<void> => {
    const i = n++;
    const ex = await (async () => {
      switch (i % 4) {
        case 0:
        case 2: {
          // A steady state, as people and jobs keep one: past MAX_LIVE of its own it tidies up
          // instead, so what the workspace holds does not grow with how long the run takes (a
          // loaded machine makes runs slower, never the workspace larger).
          if (live.length >= MAX_LIVE) {
            const oldest = live.shift()!;
            stats.archives++;
            return api.send({ method: 'POST', path: `/definitions/${oldest}/archive`, key, body: { reason: 'neighbour tidies up' } });
          }
          stats.creates++;
          const e = await api.send({
            method: 'POST',
            path: '/definitions',
            key,
            body: {
              name: `neighbour-${i}`,
              moduleKey: MODULES[i % MODULES.length],
              entityKinds: ['account'],
              valueType: i % 3 === 0 ? 'enum' : 'text',
              reason: 'neighbour at work',
              ...(i % 3 === 0 ? { enumValues: [{ label: 'A' }, { label: 'B' }] } : {}),
            },
          });
          const id = (e.response?.json as { id?: unknown } | undefined)?.id;
          if (typeof id === 'string') live.push(id);
          return e;
        }
        case 1: {
          const id = live[live.length - 1];
          if (!id) return undefined;
          stats.patches++;
          return api.send({ method: 'PATCH', path: `/definitions/${id}`, key, body: { reason: 'neighbour edits', description: `edited ${i}` } });
        }
        default: {
          if (i % 8 === 3) {
            stats.lists++;
            return api.send({ method: 'GET', path: '/definitions', key, query: { limit: 200, includeArchived: true } });
          }
          const id = live.shift();
          if (!id) return undefined;
          stats.archives++;
          return api.send({ method: 'POST', path: `/definitions/${id}/archive`, key, body: { reason: 'neighbour tidies up' } });
        }
      }
    })();
    if (!ex) return;
    if (ex.response && ex.response.status >= 200 && ex.response.status < 300) stats.answered2xx++;
    else stats.errors++;
  };
  const loop = (async () => {
    while (!stopped) {
      await step();
      await new Promise((r) => setTimeout(r, interval));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      await api.close();
      return stats;
    },
  };
}

/**
 * Left-overs of earlier runs: `count` definitions of other prefixes, every third archived,
 * written before the run starts.
 */
export async function seedLeftovers(baseUrl: string, secret: string, count: number): Promise<void> {
  const secrets = new SecretRegistry();
  secrets.add(secret, 'leftovers');
  const api = createHttpClient({ baseUrl, timeoutMs: 10_000, secrets, idPrefix: 'leftovers' });
  const key: KeyHandle = { name: 'leftovers', secret, role: 'owner', scopes: ['graph:read', 'admin'] };
  try {
    for (let i = 0; i < count; i++) {
      const prefix = ['wgc-0001aaaaaa-', 'old-run-', 'import-', 'Manual '][i % 4];
      const ex = await api.send({
        method: 'POST',
        path: '/definitions',
        key,
        body: { name: `${prefix}${i}`, moduleKey: MODULES[i % MODULES.length], entityKinds: ['account', 'contact'], valueType: 'text', reason: 'left from earlier' },
      });
      const id = (ex.response?.json as { id?: unknown } | undefined)?.id;
      if (i % 3 === 0 && typeof id === 'string') await api.send({ method: 'POST', path: `/definitions/${id}/archive`, key, body: { reason: 'old' } });
    }
  } finally {
    await api.close();
  }
}
