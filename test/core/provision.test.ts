/**
 * Provisioning a suite's workspace and cast through the control client, against control
 * endpoints that take the cast addition (docs/control-protocol-additions.md) in each way a
 * version 1 target may: made in the one call, the field ignored, the field refused (400), or
 * an answer that does not hold the members asked for. Every way ends in the same cast, or in
 * a harness error with the workspace deleted again.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { afterEach, expect, test } from 'vitest';
import { createControlClient, type ControlClient } from '../../src/control/client.ts';
import { provisionSuite, type SuiteCast } from '../../src/target/provision.ts';
import type { KeyHandle } from '../../src/vocabulary.ts';

type Mode = 'cast' | 'ignores' | 'strict' | 'malformed';

interface Stub {
  url: string;
  /** "METHOD path" of every call, with "+members" where the body asked for the cast. */
  calls: string[];
  close(): Promise<void>;
}

const TOKEN = 'control-token-for-provision-test';
const SUITE: SuiteCast = {
  name: 'provision',
  cast: {
    boss: { role: 'owner', scopes: ['admin', 'graph:read'] },
    reader: { role: 'analyst', scopes: ['graph:read'] },
    demoted: { role: 'member', scopes: ['crm:read'] },
  },
};

function body(req: IncomingMessage): Promise<Record<string, unknown>> {
  return new Promise((resolve) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString('utf8')));
    req.on('end', () => resolve(text ? (JSON.parse(text) as Record<string, unknown>) : {}));
  });
}

/** A control endpoint of version 1 that takes the cast addition as `mode` says. */
async function stub(mode: Mode): Promise<Stub> {
  const calls: string[] = [];
  let n = 0;
  const server: Server = createServer(async (req, res) => {
    const b = await body(req);
    const path = (req.url ?? '').replace(/^\/control/, '');
    calls.push(`${req.method} ${path.replace(/[0-9a-f]{8}(-[0-9a-f]+)*/g, ':id')}${b.members ? ' +members' : ''}`);
    const send = (status: number, json?: unknown) => {
      res.writeHead(status, json === undefined ? {} : { 'content-type': 'application/json' });
      res.end(json === undefined ? undefined : JSON.stringify(json));
    };
    const id = () => `${(++n).toString(16).padStart(8, '0')}-0000`;
    if (req.method === 'POST' && path === '/workspaces') {
      if (b.members && mode === 'strict') return send(400, { error: 'unknown field members' });
      const workspaceId = id();
      if (!b.members || mode === 'ignores') return send(201, { workspaceId });
      const members = (b.members as unknown[]).map(() => ({ userId: id(), keyId: id(), secret: `secret-${id()}-of-a-cast-member` }));
      return send(201, { workspaceId, members: mode === 'malformed' ? members.slice(1) : members });
    }
    if (req.method === 'POST' && path.endsWith('/members')) return send(201, { userId: id() });
    if (req.method === 'POST' && path.endsWith('/keys')) return send(201, { keyId: id(), secret: `secret-${id()}-of-a-key` });
    if (req.method === 'PATCH' || req.method === 'DELETE') return send(204);
    return send(404, { error: 'unknown' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/control`,
    calls,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let open: { stub: Stub; client: ControlClient }[] = [];
afterEach(async () => {
  for (const o of open) {
    await o.client.close();
    await o.stub.close();
  }
  open = [];
});

async function provisioned(mode: Mode) {
  const s = await stub(mode);
  const client = createControlClient({ controlUrl: s.url, token: TOKEN, http: { timeoutMs: 2_000 } });
  open.push({ stub: s, client });
  return { stub: s, client, provision: () => provisionSuite(SUITE, client, 'run-1') };
}

/** The cast as provisioned: every cast name with its role and scopes, each with a key of its own. */
function expectCast(keys: Map<string, KeyHandle>): void {
  expect([...keys.keys()]).toEqual(['boss', 'reader', 'demoted']);
  for (const [name, member] of Object.entries(SUITE.cast)) {
    const k = keys.get(name)!;
    expect(k.role).toBe(member.role);
    expect(k.scopes).toEqual(member.scopes);
    expect(k.secret).toMatch(/^secret-/);
    expect(k.keyId).toBeTruthy();
    expect(k.userId).toBeTruthy();
  }
  expect(new Set([...keys.values()].map((k) => k.secret)).size).toBe(3);
}

test('a target with the cast addition: workspace, members and keys in one call', async () => {
  const { stub: s, provision } = await provisioned('cast');
  const p = await provision();
  expectCast(p.keys);
  expect(s.calls).toEqual(['POST /workspaces +members']);
});

test('a target that ignores the field: the members are made one call at a time, the "member" moved after its key', async () => {
  const { stub: s, provision } = await provisioned('ignores');
  const p = await provision();
  expectCast(p.keys);
  expect(s.calls[0]).toBe('POST /workspaces +members');
  expect([...s.calls.slice(1)].sort()).toEqual(['PATCH /workspaces/:id/members/:id', ...Array(3).fill('POST /workspaces/:id/keys'), ...Array(3).fill('POST /workspaces/:id/members')].sort());
});

test('a target that refuses the field (400): asked again without it, then not asked with it again', async () => {
  const { stub: s, provision } = await provisioned('strict');
  expectCast((await provision()).keys);
  expect(s.calls.slice(0, 2)).toEqual(['POST /workspaces +members', 'POST /workspaces']);
  expect(s.calls).toHaveLength(2 + 7);
  s.calls.length = 0;
  expectCast((await provision()).keys);
  expect(s.calls[0]).toBe('POST /workspaces');
  expect(s.calls.filter((c) => c.includes('+members'))).toEqual([]);
});

test('an answer without the members asked for: a harness error naming the addition, the workspace deleted again', async () => {
  const { stub: s, provision } = await provisioned('malformed');
  await expect(provision()).rejects.toThrow(/provisioning suite "provision".*not 3 of \{ userId, keyId, secret \} \(the cast addition\)/);
  expect(s.calls).toEqual(['POST /workspaces +members', 'DELETE /workspaces/:id']);
});
