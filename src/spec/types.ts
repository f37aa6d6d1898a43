/**
 * Typed view of the OpenAPI documents in specs/ (openapi.yaml, control-openapi.yaml) as
 * returned by loadSpec() / loadControlSpec(). The documents are the data; these types only
 * describe the parts the suites, validators and generators read.
 */
import type { Role, Scope } from '../vocabulary.ts';

/** JSON Schema type names (draft 2020-12, as used by OpenAPI 3.1). */
export type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array' | 'null';

/**
 * A JSON Schema object from the dereferenced document ($refs already replaced).
 * Only the keywords the tooling reads are named; any other keyword is kept as unknown.
 */
export interface JsonSchema {
  type?: JsonType | JsonType[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minItems?: number;
  maxItems?: number;
  default?: unknown;
  description?: string;
  [keyword: string]: unknown;
}

export type HttpMethod = 'GET' | 'PUT' | 'POST' | 'DELETE' | 'OPTIONS' | 'HEAD' | 'PATCH' | 'TRACE';

/** `x-wgc-access`: who may call an operation. `null` means the seed does not say. */
export interface AccessRule {
  /** Every listed scope is required; `[]` means any valid key. */
  scopes: Scope[] | null;
  /** Workspace roles allowed to call it. */
  roles: Role[] | null;
  note?: string;
}

/** `x-wgc-billing`: what a successful (2xx) call costs. */
export type Billing = 'free' | 'billed';

/** `x-wgc-ambiguity`: every reading the seed allows; checks accept each of them. */
export interface Ambiguity {
  question: string;
  accepted: string[];
}

/** One entry of the root `x-wgc-operations` map: a catalog operation named by the seed. */
export interface CatalogOperationRule extends AccessRule {
  /** The endpoint that carries it, e.g. "POST /operations". */
  via: string;
  /** Argument names the seed gives, if any. */
  arguments?: string[];
  /** Names of the quoted values in its response, if the seed gives them. */
  quotes?: string[];
}

export type ParameterLocation = 'query' | 'header' | 'path' | 'cookie';

/** A parameter of an operation (path-level and operation-level merged). */
export interface ParameterInfo {
  name: string;
  in: ParameterLocation;
  required: boolean;
  schema: JsonSchema;
  style?: string;
  explode?: boolean;
  description?: string;
}

/** A declared response: `status` is as written in the document ("200", "4XX", "default"). */
export interface ResponseInfo {
  status: string;
  description: string;
  /** The application/json schema, absent for bodiless responses (204). */
  schema?: JsonSchema;
}

/** What every operation of either document has. */
export interface BaseOperationInfo {
  operationId: string;
  method: HttpMethod;
  /** The path template as written, e.g. "/definitions/{definitionId}" (relative to the server url). */
  path: string;
  summary: string;
  tags: string[];
  parameters: ParameterInfo[];
  requestBodySchema?: JsonSchema;
  requestBodyRequired: boolean;
  /** Declared responses by status key. */
  responses: Record<string, ResponseInfo>;
}

/** An operation of the service API, with the x-wgc extensions read. */
export interface OperationInfo extends BaseOperationInfo {
  access: AccessRule;
  billing: Billing;
  /** True on the five endpoints that accept an Idempotency-Key. */
  idempotent: boolean;
  ambiguity?: Ambiguity;
}

/** A loaded, validated and dereferenced OpenAPI document. Deeply frozen. */
export interface LoadedDocument<Op extends BaseOperationInfo> {
  /** Absolute path of the file. */
  file: string;
  /** sha256 of the file bytes, hex. */
  hash: string;
  /** The document as parsed, $refs intact. */
  raw: Readonly<Record<string, unknown>>;
  /** The document with every $ref replaced by its target (shared objects keep their identity). */
  document: Readonly<Record<string, unknown>>;
  operations: readonly Op[];
  /** The operation with this operationId; throws an Error naming the file if there is none. */
  operation(operationId: string): Op;
  /**
   * The operation serving a request: `path` is a template ("/definitions/{definitionId}") or a
   * concrete path ("/definitions/0b6c...?limit=5"); a leading "/api/v1" and the query are ignored.
   */
  operationByRoute(method: string, path: string): Op | undefined;
  /** A named schema of components/schemas (dereferenced); throws if there is none. */
  componentSchema(name: string): JsonSchema;
}

/** The service API document (specs/openapi.yaml). */
export interface LoadedSpec extends LoadedDocument<OperationInfo> {
  /** The root x-wgc-operations map, by catalog operation name. */
  catalogOperations: Readonly<Record<string, CatalogOperationRule>>;
}

/** The test-control protocol document (specs/control-openapi.yaml). */
export type LoadedControlSpec = LoadedDocument<BaseOperationInfo>;
