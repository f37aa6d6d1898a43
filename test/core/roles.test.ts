/**
 * Role names of a target without control: GET /me's role is read as the document's word (case,
 * whitespace and separators aside) or through the profile's `roles`; the cast matching and the
 * share of the casts the keys fill (the stop before a run the keys cannot drive) both use it.
 */
import { describe, expect, test } from 'vitest';
import { castShare, castShortfall } from '../../src/target/cast-share.ts';
import { matchCast } from '../../src/target/cast.ts';
import type { IntrospectedKey } from '../../src/target/introspect.ts';
import { describeRole, documentRole } from '../../src/target/roles.ts';
import type { CastMember } from '../../src/vocabulary.ts';

describe('documentRole', () => {
  test.each([
    ['owner', 'owner'],
    ['Owner', 'owner'],
    ['OWNER', 'owner'],
    [' owner ', 'owner'],
    ['Analyst', 'analyst'],
    ['ana-lyst', 'analyst'],
    ['AD_MIN', 'admin'],
    ['mem ber', 'member'],
  ])("%j is the document's %s", (raw, role) => {
    expect(documentRole(raw)).toBe(role);
  });

  test.each(['workspace-owner', 'Workspace Admin', 'Superuser', 'owners', '', ' - '])("%j is none of the document's roles without a mapping", (raw) => {
    expect(documentRole(raw)).toBeUndefined();
  });

  test("the profile map names the target's roles, compared the same way, and wins over the document's words", () => {
    const map = { 'workspace-owner': 'owner', 'Workspace Admin': 'admin', Admin: 'owner' } as const;
    expect(documentRole('Workspace_Owner', map)).toBe('owner');
    expect(documentRole('workspace admin', map)).toBe('admin');
    expect(documentRole('ADMIN', map)).toBe('owner');
    expect(documentRole('analyst', map)).toBe('analyst');
    expect(documentRole('Superuser', map)).toBeUndefined();
  });

  test("describeRole keeps the target's spelling visible", () => {
    expect(describeRole('owner')).toBe('owner');
    expect(describeRole('Owner')).toBe('Owner → owner');
    expect(describeRole('workspace-owner', { 'workspace-owner': 'owner' })).toBe('workspace-owner → owner');
    expect(describeRole('Superuser')).toBe('"Superuser", not a role of the API document');
  });
});

const supplied = [
  { name: 'owner-key', secret: 'wg_secret_owner' },
  { name: 'analyst-key', secret: 'wg_secret_analyst' },
];
const me = (ownerRole: string, analystRole: string): IntrospectedKey[] => [
  { name: 'owner-key', ok: true, role: ownerRole, scopes: ['graph:read'], workspaceId: 'w1', userId: 'u1' },
  { name: 'analyst-key', ok: true, role: analystRole, scopes: ['admin'], workspaceId: 'w1', userId: 'u2' },
];
const CAST: Record<string, CastMember> = {
  reader: { role: 'owner', scopes: ['graph:read'] },
  admin: { role: ['analyst', 'admin'], scopes: ['admin'] },
  writer: { role: 'owner', scopes: ['graph:write'] },
};

describe("matchCast with the target's role names", () => {
  test("capitalised roles fill the cast; the handle carries the document's role, messages the target's spelling", () => {
    const m = matchCast(CAST, supplied, me('Owner', 'ANALYST'));
    expect(m.keys.get('reader')).toMatchObject({ secret: 'wg_secret_owner', role: 'owner', userId: 'u1' });
    expect(m.keys.get('admin')).toMatchObject({ secret: 'wg_secret_analyst', role: 'analyst' });
    expect(m.unmatched.get('writer')).toBe(
      'needs a key with exactly scopes [graph:write] held by an owner; the supplied keys are: owner-key (Owner → owner, [graph:read]); analyst-key (ANALYST → analyst, [admin])',
    );
  });

  test("a role of the target's own fills the cast only through the profile map", () => {
    expect(matchCast(CAST, supplied, me('workspace-owner', 'Superuser')).keys.size).toBe(0);
    const m = matchCast(CAST, supplied, me('workspace-owner', 'Superuser'), { 'Workspace Owner': 'owner' });
    expect([...m.keys.keys()]).toEqual(['reader']);
    expect(m.keys.get('reader')!.role).toBe('owner');
    expect(m.unmatched.get('admin')).toContain('owner-key (workspace-owner → owner, [graph:read]); analyst-key ("Superuser", not a role of the API document, [admin])');
  });
});

describe('castShare and castShortfall', () => {
  const suites = [
    { name: 'one', cast: CAST },
    { name: 'two', cast: { reader: CAST.reader! } },
  ];

  test('counts every suite/cast member and groups the unfilled by need', () => {
    const share = castShare(suites, supplied, me('Owner', 'analyst'));
    expect(share).toMatchObject({ total: 4, matched: 3 });
    expect([...share.unmatched]).toEqual([['exactly scopes [graph:write] held by an owner', ['one/writer']]]);
    expect(castShortfall(share, me('Owner', 'analyst'), { minShare: 0.5 })).toBeUndefined();
    // 3 of 4 is under 80%.
    const short = castShortfall(share, me('Owner', 'analyst'), { minShare: 0.8 });
    expect(short?.details[0]).toBe('GET /me said: role Owner → owner for owner-key [graph:read]; role analyst for analyst-key [admin]');
    expect(short?.summary).toMatch(/^the supplied keys fill 3 of the 4 cast members of the selected suites \(75%; a keys-only run needs at least 80% \(--min-cast-share\)\)/);
  });

  test('none filled: stops whatever the share, naming what GET /me said and the roles line to add', () => {
    const introspected = me('Superuser', 'workspace-analyst');
    const share = castShare(suites, supplied, introspected);
    expect(share.matched).toBe(0);
    const short = castShortfall(share, introspected, { minShare: 0 })!;
    expect(short.summary).toContain('fill 0 of the 4 cast members');
    expect(short.summary).toContain('needs at least one');
    expect(short.details[0]).toBe(
      'GET /me said: role "Superuser" (not a role of the API document) for owner-key [graph:read]; role "workspace-analyst" (not a role of the API document) for analyst-key [admin]',
    );
    expect(short.details[1]).toBe(
      'unfilled: exactly scopes [graph:read] held by an owner (one/reader, two/reader); exactly scopes [admin] held by an analyst or an admin (one/admin); exactly scopes [graph:write] held by an owner (one/writer)',
    );
    expect(short.details[2]).toContain('add "roles": { "Superuser": "…", "workspace-analyst": "analyst" } to the profile');
    expect(short.details[2]).toContain('--allow-partial');
    expect(JSON.stringify(short)).not.toContain('wg_secret');
  });

  test('no keys at all: the fix is to name them; suites casting nobody never stop a run', () => {
    const short = castShortfall(castShare(suites, [], []), [], { minShare: 0.5 })!;
    expect(short.details[0]).toBe('GET /me said: no keys were supplied (list them in the target profile under "keys")');
    expect(short.details[2]).toMatch(/^to fix it: name the keys in the profile under "keys"/);
    expect(castShortfall(castShare([{ name: 'free', cast: {} }], [], []), [], { minShare: 0.5 })).toBeUndefined();
  });
});
