/**
 * The configuration fields as one table: where each can be set (profile file, environment,
 * flag), its default and its meaning. Parsing, `wgc run --help` and the docs are all driven
 * from this table, so they cannot drift apart.
 */

/** How a raw value (flag text, env text or profile JSON) is read. */
export type FieldKind = 'url' | 'positiveInteger' | 'nonNegativeInteger' | 'seed' | 'boolean' | 'string' | 'list' | 'shard' | 'coverage' | 'duration' | 'share';

export interface FieldSpec {
  field: string;
  kind: FieldKind;
  /** Command-line flag of `wgc run`, if any. */
  flag?: string;
  /** Environment variable, if any. */
  env?: string;
  /** Settable in the profile file. */
  profile: boolean;
  /** The default as shown to users ("" when there is none). */
  defaultText: string;
  description: string;
  /** Secret: only from the environment, never echoed. */
  secret?: boolean;
}

export const FIELDS: readonly FieldSpec[] = [
  {
    field: 'baseUrl',
    kind: 'url',
    flag: '--base-url',
    env: 'WGC_BASE_URL',
    profile: true,
    defaultText: 'the embedded reference target',
    description: 'Target origin (plus optional path prefix); the API is at <baseUrl>/api/v1.',
  },
  {
    field: 'controlUrl',
    kind: 'url',
    flag: '--control-url',
    env: 'WGC_CONTROL_URL',
    profile: true,
    defaultText: 'none',
    description: 'Test-control protocol URL; without it, clauses needing control are not observable.',
  },
  {
    field: 'controlToken',
    kind: 'string',
    env: 'WGC_CONTROL_TOKEN',
    profile: false,
    secret: true,
    defaultText: 'none',
    description: 'Bearer token of the control protocol. Environment only, never echoed.',
  },
  {
    field: 'profile',
    kind: 'string',
    flag: '--target',
    env: 'WGC_TARGET',
    profile: false,
    defaultText: 'wg-conformance.json in the working folder, if there is one',
    description:
      'Target profile (JSON): baseUrl, controlUrl, keys [{name, env}], fixtures, and any run setting below. Reports record which profile was read (config.profile); `wgc init` writes a starter one.',
  },
  { field: 'out', kind: 'string', flag: '--out', env: 'WGC_OUT', profile: true, defaultText: 'reports', description: 'Folder for the reports.' },
  {
    field: 'seed',
    kind: 'seed',
    flag: '--seed',
    env: 'WGC_SEED',
    profile: true,
    defaultText: 'random 32-bit, printed',
    description: 'Seed of every property-based check; rerun with the printed seed to replay.',
  },
  { field: 'runs', kind: 'positiveInteger', flag: '--runs', env: 'WGC_RUNS', profile: true, defaultText: '25', description: 'Generated cases per property-based check.' },
  {
    field: 'suites',
    kind: 'list',
    flag: '--suite',
    env: 'WGC_SUITES',
    profile: true,
    defaultText: 'all',
    description: 'Suites to run (repeat the flag; comma-separated in the environment); the rest are reported disabled.',
  },
  {
    field: 'checks',
    kind: 'list',
    flag: '--check',
    env: 'WGC_CHECKS',
    profile: true,
    defaultText: 'all',
    description: 'Checks to run, by id (e.g. auth/revoked-key; repeat the flag, comma-separated in the environment): with --seed, replays a failure exactly; every other check is reported disabled.',
  },
  { field: 'readOnly', kind: 'boolean', flag: '--read-only', env: 'WGC_READ_ONLY', profile: true, defaultText: 'false', description: 'Send no mutations; checks that would are disabled.' },
  {
    field: 'maxCredits',
    kind: 'nonNegativeInteger',
    flag: '--max-credits',
    env: 'WGC_MAX_CREDITS',
    profile: true,
    defaultText: 'no limit',
    description: 'Credit budget of the run; checks whose credit ceiling exceeds what is left are disabled.',
  },
  {
    field: 'requireCoverage',
    kind: 'coverage',
    flag: '--require-coverage',
    env: 'WGC_REQUIRE_COVERAGE',
    profile: true,
    defaultText: 'none',
    description:
      'The coverage a conformant run must reach, else it is inconclusive (exit 2): a number of verified clauses (120), a share of the observable clauses (90%), or full (every observable MUST clause verified).',
  },
  {
    field: 'minCastShare',
    kind: 'share',
    flag: '--min-cast-share',
    env: 'WGC_MIN_CAST_SHARE',
    profile: true,
    defaultText: '50%',
    description:
      "Without the test-control protocol: the share of the selected suites' cast members (every suite/cast name) the supplied keys must fill, as GET /me describes them, else the run stops before any check with a usage error (exit 2) naming the unfilled members, what GET /me said of each key and the fix (50% or 0.5). A run whose keys fill no member at all stops whatever the share; a run narrowed by --check (a replay) only then. --allow-partial runs anyway.",
  },
  {
    field: 'allowPartial',
    kind: 'boolean',
    flag: '--allow-partial',
    env: 'WGC_ALLOW_PARTIAL',
    profile: true,
    defaultText: 'false',
    description: 'Run even when the supplied keys fill less of the casts than --min-cast-share asks (or none of them): on purpose, with the coverage the keys allow.',
  },
  {
    field: 'patience',
    kind: 'positiveInteger',
    flag: '--patience',
    env: 'WGC_PATIENCE',
    profile: true,
    defaultText: '1',
    description:
      "Multiplies every wait for an asynchronous effect the API document sets no time for: a receipt or compute run becoming readable (3 s), an agent preview's quote (18 s), a charge showing in the usage ledger (5 s). Raise it for a slow staging target; a target slower than the bound fails the clause that waited, and the finding names the bound.",
  },
  { field: 'timeoutMs', kind: 'positiveInteger', flag: '--timeout', env: 'WGC_TIMEOUT_MS', profile: true, defaultText: '10000', description: 'Total time per request in ms (headers and body).' },
  {
    field: 'maxDurationMs',
    kind: 'duration',
    flag: '--max-duration',
    env: 'WGC_MAX_DURATION',
    profile: true,
    defaultText: 'none',
    description:
      'Time budget of the run (120s, 10m, 1500ms; a bare number is seconds). Checks that cannot start before it ends are reported disabled (time budget), a check running at the end is stopped before its next request, and the run ends with a complete report of what it verified; the verdict names the cut.',
  },
  {
    field: 'graceMs',
    kind: 'duration',
    flag: '--grace',
    env: 'WGC_GRACE',
    profile: true,
    defaultText: '5s',
    description: 'After the time budget or a SIGINT/SIGTERM: how long the run may still clean up what it created before it writes its report and ends (a second signal ends it at once).',
  },
  {
    field: 'quiet',
    kind: 'boolean',
    flag: '--quiet',
    env: 'WGC_QUIET',
    profile: true,
    defaultText: 'false',
    description: 'No progress while running (the live line on a terminal; the per-suite lines and the 10 s heartbeat otherwise). Never part of the report files either way.',
  },
  {
    field: 'maxInFlight',
    kind: 'positiveInteger',
    flag: '--max-in-flight',
    env: 'WGC_MAX_IN_FLIGHT',
    profile: true,
    defaultText: 'from the round trip: 8 on loopback, 16 to 128 further away (twice the round trip in ms)',
    description:
      'Requests in flight to the target at once, over the whole run (suites and their lanes side by side, and the requests checks send together); more wait their turn, untimed. Unset, it is chosen from the round trip the preflight measures (src/target/pace.ts); set or not, a 429 or a slow answer lowers it for a while (src/http/limit.ts).',
  },
  {
    field: 'concurrency',
    kind: 'positiveInteger',
    flag: '--concurrency',
    env: 'WGC_CONCURRENCY',
    profile: true,
    defaultText: 'from the round trip: 2 on loopback, every suite further away',
    description:
      'Suites run side by side (in one vitest worker). Unset, it is chosen from the round trip the preflight measures: on loopback the suite itself is the limit, further away the target is waited on.',
  },
  {
    field: 'allowInsecureHttp',
    kind: 'boolean',
    flag: '--allow-insecure-http',
    env: 'WGC_ALLOW_INSECURE_HTTP',
    profile: true,
    defaultText: 'false',
    description: 'Allow plain http to a non-loopback host (keys cross the network unencrypted).',
  },
  { field: 'shard', kind: 'shard', flag: '--shard', env: 'WGC_SHARD', profile: false, defaultText: 'none', description: 'Run shard i of n (i/n); merge the partials with `wgc merge`.' },
  { field: 'certify', kind: 'boolean', flag: '--certify', env: 'WGC_CERTIFY', profile: false, defaultText: 'false', description: 'Write a certification bundle next to the reports.' },
  {
    field: 'signKey',
    kind: 'string',
    flag: '--sign-key',
    env: 'WGC_SIGN_KEY',
    profile: false,
    defaultText: 'none (the bundle is not signed)',
    description:
      'With --certify: the Ed25519 private key file (PEM, as `wgc keygen` writes it) to sign the bundle with: MANIFEST.sig, checked by `wgc verify-bundle DIR --public-key FILE`. The path is echoed in reports, never the key. Without --certify, or a file that is not an unencrypted Ed25519 private key: a usage error (exit 2) before anything is sent.',
  },
  {
    field: 'maxResponseBytes',
    kind: 'positiveInteger',
    flag: '--max-response-bytes',
    env: 'WGC_MAX_RESPONSE_BYTES',
    profile: true,
    defaultText: '8388608 (8 MiB)',
    description: 'Response body bytes read per request; the rest is cut.',
  },
  {
    field: 'allureResults',
    kind: 'string',
    flag: '--allure-results',
    env: 'WGC_ALLURE_RESULTS',
    profile: true,
    defaultText: 'none',
    description:
      'Also write Allure 2 results into this folder (render with `allure generate DIR`): one test per check, failed for target failures, broken for harness errors, skipped for not observable and disabled, with the exchanges attached.',
  },
  {
    field: 'seedUrl',
    kind: 'string',
    flag: '--seed-url',
    env: 'WGC_SEED_URL',
    profile: true,
    defaultText: 'the seed document shipped beside the suite (a file: URL)',
    description: 'Where report links to the API document point (clause → seed section links in report.json, report.html and Allure).',
  },
  {
    field: 'suitesDir',
    kind: 'string',
    flag: '--suites-dir',
    env: 'WGC_SUITES_DIR',
    profile: false,
    defaultText: 'the bundled suites/',
    description: 'Folder of <area>.test.ts suite files (for suite development).',
  },
];

/** Fields of the profile file that are not run settings. */
export const PROFILE_ONLY_FIELDS = ['keys', 'fixtures', 'roles'] as const;

/** One row of the configuration reference, for docs and help. */
export interface ConfigReferenceRow {
  field: string;
  flag: string;
  env: string;
  default: string;
  description: string;
}

/** The configuration reference table (also lists the profile-only fields). */
export function configReference(): ConfigReferenceRow[] {
  const rows = FIELDS.map((f) => ({
    field: f.field,
    flag: f.flag ?? '',
    env: f.env ?? '',
    default: f.defaultText,
    description: f.description + (f.profile ? '' : ' Not settable in the profile.'),
  }));
  rows.push(
    {
      field: 'keys',
      flag: '',
      env: '',
      default: '[]',
      description: 'Profile only: [{ "name": label, "env": NAME_OF_ENV_VAR_HOLDING_THE_SECRET }]. Secrets are read from the environment, never from the profile.',
    },
    { field: 'fixtures', flag: '', env: '', default: 'none', description: 'Profile only: { "accountId", "accountPersonId" } of existing records, for targets without control.' },
    {
      field: 'roles',
      flag: '',
      env: '',
      default: 'none',
      description:
        'Profile only: the target\'s own role names → the API document\'s roles (owner, admin, analyst, member), e.g. { "workspace-owner": "owner", "Workspace Admin": "admin" }. Without control, each key\'s role from GET /me is read as the document\'s word with case, surrounding whitespace and "-", "_" or spaces set aside (Owner is owner); a name neither that nor this map gives fits no cast member. Names are compared the same way.',
    },
    {
      field: '$comment',
      flag: '',
      env: '',
      default: 'none',
      description: 'Profile only: notes for the reader, a string or a list of strings (JSON has no comments); the run ignores them. `wgc init` writes them.',
    },
  );
  return rows;
}

/** The table as aligned text (for `wgc run --help`). */
export function renderConfigReference(): string {
  const rows = configReference().filter((r) => r.flag || r.env);
  const flagW = Math.max(...rows.map((r) => r.flag.length));
  const envW = Math.max(...rows.map((r) => r.env.length));
  return rows.map((r) => `  ${r.flag.padEnd(flagW)}  ${r.env.padEnd(envW)}  ${r.description} Default: ${r.default}.`).join('\n');
}
