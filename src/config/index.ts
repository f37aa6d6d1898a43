/** One typed configuration, resolved once: defaults < profile < environment < flags. */
export { resolveConfig, parseFlags, ConfigError, type ConfigInputs, type ConfigSource, type ResolvedConfig } from './resolve.ts';
export { ConfigSchema, KeyRefSchema, FixturesSchema, DEFAULTS, redactConfig, type Config, type KeyRef, type Fixtures } from './schema.ts';
export { FIELDS, configReference, renderConfigReference, type ConfigReferenceRow, type FieldSpec } from './fields.ts';
export { parseProfile } from './profile.ts';
