/**
 * Client of the test-control protocol (../shared/control-protocol.md). It uses the same
 * bounded transport as the API client (timeouts, size caps, insecure-transport refusal,
 * redaction), but a control problem is a harness problem, not a target finding: every
 * failure throws ControlError naming the call, the status and the server's `{error}` text.
 */
import type { Dispatcher } from 'undici';
import type { Role, Scope } from '../vocabulary.ts';
import { createDispatcher, DEFAULT_MAX_RESPONSE_BYTES, USER_AGENT } from '../http/client.ts';
import { SecretRegistry } from '../http/redact.ts';
import { performRequest, type TransportOptions } from '../http/transport.ts';
import type { CapabilityName, CastAnswer, ControlApi, UsageLedger } from './types.ts';

export interface ControlClientOptions {
  /** e.g. http://127.0.0.1:4010/__control/v1 */
  controlUrl: string;
  token: string;
  http: {
    timeoutMs: number;
    maxResponseBytes?: number;
    allowInsecureHttp?: boolean;
    /** The run's keep-alive Agent; when absent the client creates its own (see close()). */
    dispatcher?: Dispatcher;
    /** The run's registry: the token and every key secret the control hands out are added to it. */
    secrets?: SecretRegistry;
    /** Sees every captured (redacted) control exchange, e.g. to record a check's scenario. */
    onExchange?: (exchange: import('../http/exchange.ts').Exchange) => void;
  };
}

/** A control call failed: the harness cannot set up what a check needs. Never a target finding. */
export class ControlError extends Error {
  constructor(
    readonly method: string,
    readonly path: string,
    readonly status: number | undefined,
    readonly detail: string,
  ) {
    super(`control ${method} ${path} failed: ${status !== undefined ? `${status} ` : ''}${detail}`);
    this.name = 'ControlError';
  }
}

export interface ControlClient extends ControlApi {
  /** Requests sent to the control endpoint. */
  readonly requestCount: number;
  /** Closes the dispatcher if this client created it. */
  close(): Promise<void>;
}

/** Control URLs whose target answered 400 to the cast addition in this process (see createWorkspace). */
const castRefused = new Set<string>();

/** Creates the ControlApi for one control URL. */
export function createControlClient(opts: ControlClientOptions): ControlClient {
  const base = opts.controlUrl.replace(/\/+$/, '');
  const secrets = opts.http.secrets ?? new SecretRegistry();
  secrets.add(opts.token, 'control_token');
  const ownDispatcher = opts.http.dispatcher ? undefined : createDispatcher({ connectTimeoutMs: opts.http.timeoutMs });
  const maxResponseBytes = opts.http.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const transport: TransportOptions = {
    dispatcher: opts.http.dispatcher ?? ownDispatcher!,
    secrets,
    timeoutMs: opts.http.timeoutMs,
    maxResponseBytes,
    maxDecompressedBytes: maxResponseBytes,
    allowInsecureHttp: opts.http.allowInsecureHttp ?? false,
  };
  let seq = 0;
  let requests = 0;

  async function call<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { 'user-agent': USER_AGENT, accept: 'application/json', authorization: `Bearer ${opts.token}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const req = { method, url: base + path, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) };
    const { exchange, sent, rawText } = await performRequest(req, transport, `control-${++seq}`, true);
    if (sent) requests++;
    opts.http.onExchange?.(exchange);
    if (exchange.error) throw new ControlError(method, path, exchange.response?.status, `${exchange.error.kind}: ${exchange.error.message}`);
    const res = exchange.response!;
    if (res.status < 200 || res.status > 299) {
      const err = (res.json as { error?: unknown } | undefined)?.error;
      throw new ControlError(method, path, res.status, typeof err === 'string' ? err : res.text.slice(0, 500) || '(empty body)');
    }
    if (res.status === 204 || !rawText) return undefined as T;
    try {
      // The raw text: a created key's secret arrives here and must reach the caller intact.
      return JSON.parse(rawText) as T;
    } catch {
      throw new ControlError(method, path, res.status, `the answer is not JSON: ${res.text.slice(0, 200)}`);
    }
  }

  const enc = encodeURIComponent;
  return {
    get requestCount() {
      return requests;
    },
    async close() {
      if (ownDispatcher && !ownDispatcher.closed) await ownDispatcher.close();
    },
    info: () => call('GET', '/'),
    async createWorkspace(credits, members) {
      const body = credits === undefined ? {} : { credits };
      const alone = () => call<{ workspaceId: string }>('POST', '/workspaces', body);
      // A target that refused the cast addition once (a strict version 1 answers 400 to a field it
      // does not know) is not asked again: the workspace alone, its members one call at a time.
      if (!members || castRefused.has(base)) return alone();
      let out: { workspaceId: string; members?: unknown };
      try {
        out = await call('POST', '/workspaces', { ...body, members: members.map((m) => ({ role: m.role, scopes: [...m.scopes] })) });
      } catch (e) {
        if (!(e instanceof ControlError) || e.status !== 400) throw e;
        castRefused.add(base);
        return alone();
      }
      if (out?.members === undefined) return out;
      const cast = out.members;
      const fine =
        Array.isArray(cast) && cast.length === members.length && cast.every((m) => typeof m?.userId === 'string' && typeof m.keyId === 'string' && typeof m.secret === 'string' && m.secret.length > 0);
      if (!fine) {
        // The workspace was made: it goes again before the call fails, as a failed provisioning's does.
        if (typeof out?.workspaceId === 'string') await call('DELETE', `/workspaces/${enc(out.workspaceId)}`).catch(() => undefined);
        throw new ControlError('POST', '/workspaces', 201, `the answer's members are not ${members.length} of { userId, keyId, secret } (the cast addition)`);
      }
      // As for createKey: from now on each secret is redacted wherever it shows up.
      for (const m of cast as CastAnswer[]) secrets.add(m.secret, `key_${m.keyId}`);
      return { workspaceId: out.workspaceId, members: cast as CastAnswer[] };
    },
    deleteWorkspace: (ws) => call('DELETE', `/workspaces/${enc(ws)}`),
    pauseWorkspace: (ws) => call('POST', `/workspaces/${enc(ws)}/pause`),
    resumeWorkspace: (ws) => call('POST', `/workspaces/${enc(ws)}/resume`),
    addMember: (ws, role: Role) => call('POST', `/workspaces/${enc(ws)}/members`, { role }),
    setMemberRole: (ws, userId, role) => call('PATCH', `/workspaces/${enc(ws)}/members/${enc(userId)}`, { role }),
    removeMember: (ws, userId) => call('DELETE', `/workspaces/${enc(ws)}/members/${enc(userId)}`),
    async createKey(ws, userId, scopes: readonly Scope[]) {
      const out = await call<{ keyId: string; secret: string }>('POST', `/workspaces/${enc(ws)}/keys`, { userId, scopes });
      if (typeof out?.secret !== 'string' || typeof out.keyId !== 'string') {
        throw new ControlError('POST', `/workspaces/${ws}/keys`, 201, 'the answer lacks keyId or secret');
      }
      // From now on the secret is redacted wherever it shows up, labelled by its key id.
      secrets.add(out.secret, `key_${out.keyId}`);
      return out;
    },
    setKeyScopes: (keyId, scopes) => call('PUT', `/keys/${enc(keyId)}/scopes`, { scopes }),
    revokeKey: (keyId) => call('POST', `/keys/${enc(keyId)}/revoke`),
    disableKey: (keyId) => call('POST', `/keys/${enc(keyId)}/disable`),
    enableKey: (keyId) => call('POST', `/keys/${enc(keyId)}/enable`),
    usage: (ws) => call<UsageLedger>('GET', `/workspaces/${enc(ws)}/usage`),
    setRateLimit: (ws, requestsPerMinute) => call('PUT', `/workspaces/${enc(ws)}/rate-limit`, { requestsPerMinute }),
    setCapabilities: (ws, switches: Partial<Record<CapabilityName, boolean>>) => call('PUT', `/workspaces/${enc(ws)}/capabilities`, switches),
    createAccount: (ws, body = {}) => call('POST', `/workspaces/${enc(ws)}/accounts`, body),
    createPerson: (ws, accountId, body = {}) => call('POST', `/workspaces/${enc(ws)}/accounts/${enc(accountId)}/people`, body),
    setLabel: (ws, label) => call('POST', `/workspaces/${enc(ws)}/labels`, label),
    labels: (ws) => call('GET', `/workspaces/${enc(ws)}/labels`),
  };
}
