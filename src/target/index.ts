/** Targets: key introspection, cast matching (without control), provisioning (with control). */
export { introspectKeys, type IntrospectedKey, type SuppliedKey } from './introspect.ts';
export { matchCast, describeCastMember, type CastMatch } from './cast.ts';
export { provisionSuite, type ProvisionedSuite, type ProvisionOptions } from './provision.ts';
