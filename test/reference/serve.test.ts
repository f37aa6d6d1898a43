/** `wgc serve`: argument handling, output, token reporting and a clean stop. */
import { describe, expect, it } from 'vitest';
import { serveCommand } from '../../src/cli/serve.ts';
import { FAULTS } from '../../src/reference/index.ts';

function io(signal?: AbortSignal) {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, sink: { out: (t: string) => void out.push(t), err: (t: string) => void err.push(t), ...(signal ? { signal } : {}) } };
}

async function serveUntilReady(argv: string[], env: NodeJS.ProcessEnv) {
  const stop = new AbortController();
  const o = io(stop.signal);
  const done = serveCommand(argv, env, o.sink);
  for (let i = 0; i < 200 && !o.out.join('').includes('Stop with'); i++) await new Promise((r) => setTimeout(r, 5));
  return { o, stop, done, text: o.out.join('') };
}

describe('wgc serve', () => {
  it('lists the faults', async () => {
    const o = io();
    expect(await serveCommand(['--list-faults'], {}, o.sink)).toBe(0);
    const text = o.out.join('');
    for (const f of FAULTS) expect(text).toContain(f.name);
    expect(text).toContain('AUTH-002');
    expect(text).toContain(`${FAULTS.length} faults`);
  });

  it('refuses bad arguments and unknown faults with exit 2', async () => {
    for (const argv of [['--port', 'x'], ['--port', '70000'], ['--bogus'], ['--fault'], ['--fault', 'nope']]) {
      const o = io();
      expect(await serveCommand(argv, {}, o.sink), argv.join(' ')).toBe(2);
      expect(o.err.join('')).toMatch(/wgc serve: /);
    }
  });

  it('prints a generated token, serves, and stops cleanly', async () => {
    const s = await serveUntilReady(['--port', '0', '--fault=replays-billed'], {});
    const api = /API: +(\S+)/.exec(s.text)![1]!;
    const token = /generated: (\S+)/.exec(s.text)![1]!;
    expect(s.text).toContain('faults:        replays-billed');
    const info = await fetch(api.replace('/api/v1', '/__control/v1/'), { headers: { authorization: `Bearer ${token}` } });
    expect(await info.json()).toEqual({ protocol: 'wg-control', version: 1 });
    s.stop.abort();
    expect(await s.done).toBe(0);
    await expect(fetch(`${api}/me`)).rejects.toThrow();
  });

  it('serves the alternative variant with --variant, and refuses unknown variants and faults on it', async () => {
    const s = await serveUntilReady(['--variant', 'alternative'], {});
    expect(s.text).toContain('variant:       alternative');
    const ctl = /control: +(\S+)/.exec(s.text)![1]!;
    const token = /generated: (\S+)/.exec(s.text)![1]!;
    const control = async (path: string, body: unknown): Promise<Record<string, string>> =>
      (await fetch(ctl + path, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })).json() as Promise<
        Record<string, string>
      >;
    const { workspaceId } = await control('/workspaces', {});
    const { userId } = await control(`/workspaces/${workspaceId}/members`, { role: 'owner' });
    const { secret } = await control(`/workspaces/${workspaceId}/keys`, { userId, scopes: ['graph:read'] });
    expect(secret).toMatch(/^acme_live_[0-9A-Za-z_-]{40}$/);
    s.stop.abort();
    expect(await s.done).toBe(0);
    for (const argv of [['--variant', 'nope'], ['--variant'], ['--variant', 'alternative', '--fault', 'replays-billed']]) {
      const o = io();
      expect(await serveCommand(argv, {}, o.sink), argv.join(' ')).toBe(2);
      expect(o.err.join('')).toMatch(/wgc serve: .*(variant|default variant only)/);
    }
  });

  it('serves the lenient variant with --variant lenient', async () => {
    const s = await serveUntilReady(['--variant', 'lenient'], {});
    expect(s.text).toContain('variant:       lenient');
    const api = /API: +(\S+)/.exec(s.text)![1]!;
    // Routes are matched before the key is looked at, and ICPs live at /data/profiles.
    expect((await fetch(`${api}/data/icps`)).status).toBe(404);
    expect((await fetch(`${api}/data/profiles`)).status).toBe(401);
    s.stop.abort();
    expect(await s.done).toBe(0);
  });

  it('never prints a token given by flag or environment', async () => {
    const fromEnv = await serveUntilReady([], { WGC_CONTROL_TOKEN: 'env-secret-token' });
    expect(fromEnv.text).toContain('from WGC_CONTROL_TOKEN');
    expect(fromEnv.text).not.toContain('env-secret-token');
    const ctl = /control: +(\S+)/.exec(fromEnv.text)![1]!;
    expect((await fetch(`${ctl}/`, { headers: { authorization: 'Bearer env-secret-token' } })).status).toBe(200);
    fromEnv.stop.abort();
    expect(await fromEnv.done).toBe(0);
    const fromFlag = await serveUntilReady(['--control-token', 'flag-secret-token'], { WGC_CONTROL_TOKEN: 'env-secret-token' });
    expect(fromFlag.text).toContain('from --control-token');
    expect(fromFlag.text).not.toContain('flag-secret-token');
    fromFlag.stop.abort();
    expect(await fromFlag.done).toBe(0);
  });
});
