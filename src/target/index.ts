/** Targets: key introspection, cast matching (without control), provisioning (with control). */
export { introspectKeys, type IntrospectedKey, type SuppliedKey } from './introspect.ts';
export { matchCast, describeCastMember, describeKeys, type CastMatch } from './cast.ts';
export { castShare, castShortfall, type CastShare, type CastShortfall } from './cast-share.ts';
export { documentRole, describeRole, type RoleMap } from './roles.ts';
export { provisionSuite, type ProvisionedSuite, type ProvisionOptions } from './provision.ts';
