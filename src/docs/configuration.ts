/**
 * docs/configuration.md: every option of `wgc run` with its flag, environment variable and
 * default, from `configReference()` (the table parsing and `wgc run --help` use), plus the
 * keys a target without the test-control protocol should supply, from the suites' casts.
 */
import { configReference } from '../config/index.ts';
import type { SuiteDef } from '../engine/check.ts';
import { keyNeeds, suggestKeys, suppliedKeysProfile } from './keys.ts';
import { cell, code, generatedBanner, table } from './markdown.ts';

/** Where the generated example profile is written (relative to the package root). */
export const SUPPLIED_KEYS_PROFILE = 'examples/profiles/supplied-keys.json';

/** The hand-written example profile shown on the page (relative to the package root). */
export const EXAMPLE_PROFILE = 'examples/profiles/staging.json';

/** The configuration reference page; `exampleProfile` is the text of EXAMPLE_PROFILE. */
export function renderConfigurationPage(suites: readonly SuiteDef[], exampleProfile: string): string {
  const rows = configReference();
  const settings = rows.filter((r) => r.flag || r.env);
  const profileOnly = rows.filter((r) => !r.flag && !r.env);
  const needs = keyNeeds(suites);
  const keys = suggestKeys(needs);
  const out: string[] = [
    generatedBanner('src/config/fields.ts (configReference) and the suite casts'),
    '',
    '# Configuration reference',
    '',
    '`wgc run` reads one configuration, resolved once, in this order (later wins):',
    '',
    '1. the defaults below;',
    '2. the **target profile**, a JSON file given with `--target FILE` (or `WGC_TARGET`), else `wg-conformance.json` in the working folder if there is one;',
    '3. the **environment** (`WGC_*` variables);',
    '4. the **flags** of `wgc run`.',
    '',
    'Every problem is reported at once, naming where the value came from (`--runs: expected a',
    'positive integer, got "abc"`), and the run exits 2 before any request is sent. The resolved',
    'configuration is echoed into every report with secrets removed. `wgc run --help` prints the',
    'same table.',
    '',
    '## Options',
    '',
    table(
      ['Option', 'Flag', 'Environment', 'Default', 'Meaning'],
      settings.map((r) => [code(r.field), r.flag ? code(r.flag) : '—', r.env ? code(r.env) : '—', cell(r.default), cell(r.description)]),
    ),
    '',
    'Boolean flags take no value (`--read-only`); in the environment and the profile they accept',
    '`true`/`false` (also `1`/`0`, `yes`/`no`, `on`/`off`). `--flag value` and `--flag=value` are',
    'equivalent. An empty environment variable counts as unset.',
    '',
    '## The target profile',
    '',
    'A JSON object describing one deployment: any option above not marked "Not settable in the',
    'profile", by its option name (`"maxCredits": 2000`), and these fields:',
    '',
    table(
      ['Field', 'Default', 'Meaning'],
      profileOnly.map((r) => [code(r.field), cell(r.default), cell(r.description)]),
    ),
    '',
    '**Secrets never live in the profile.** A key is a label and the *name* of the environment',
    'variable that holds its secret; the control token is read from `WGC_CONTROL_TOKEN` only. A',
    'profile field that looks like an inline secret (`secret`, `token`, `apiKey`, a lower-case',
    '`env` value) is refused with a message saying what to do instead. In CI, put the secrets in',
    "the CI system's secret store and map them to those variable names (see",
    '[docs/guide/ci.md](guide/ci.md)).',
    '',
    `For example, [\`${EXAMPLE_PROFILE}\`](../${EXAMPLE_PROFILE}):`,
    '',
    '```json',
    exampleProfile.trimEnd(),
    '```',
    '',
    '## Keys for a target without the test-control protocol',
    '',
    'With the test-control protocol (`--control-url` and `WGC_CONTROL_TOKEN`) every suite creates',
    'its own workspace, members and keys, and no key needs to be supplied. Without it, the suites',
    'use the keys the profile names: each key is introspected once with `GET /me` (free) and',
    "matched to the suites' casts by role and scopes. A cast member no key fits makes its checks",
    '**not observable** (with the reason in the report), never failed. These are the distinct',
    `needs of the suites (${needs.length}):`,
    '',
    table(
      ['Role', 'Scopes', 'Needed by (suite/cast)'],
      needs.map((n) => [
        cell(n.roles.join(' or ')),
        cell(`${n.exact ? 'exactly' : 'at least'} ${n.scopes.length === 0 ? 'no scope' : n.scopes.join(', ')}`),
        cell(n.usedBy.join(', ')),
      ]),
    ),
    '',
    `One key may fill several needs; these ${keys.length} keys fill all of them:`,
    '',
    table(
      ['Key label', 'Environment variable', 'Role', 'Scopes'],
      keys.map((k) => [code(k.name), code(k.env), k.role, cell(k.scopes.length === 0 ? '(none)' : k.scopes.join(', '))]),
    ),
    '',
    `[\`${SUPPLIED_KEYS_PROFILE}\`](../${SUPPLIED_KEYS_PROFILE}) is a profile naming all of them`,
    '(also generated by `wgc docs`). Supplying fewer keys is fine: coverage drops, and the report',
    'says which checks could not be observed and which key they needed.',
    '',
    'Checks that need the test-control protocol itself (revoking, pausing, role changes, the',
    'usage ledger, rate limits, capability switches) are not observable without it whatever',
    'keys are supplied; `wgc clauses` lists what each clause needs (column NEEDS), and',
    '[docs/clauses.md](clauses.md) says it in full.',
    '',
  ];
  return out.join('\n');
}

/** The generated example profile with every suggested key. */
export function renderSuppliedKeysProfile(suites: readonly SuiteDef[]): string {
  return suppliedKeysProfile(suggestKeys(keyNeeds(suites)));
}
