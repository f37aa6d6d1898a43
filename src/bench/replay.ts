/**
 * The raw limit: the requests a run sent, replayed back to back through the suite's own
 * transport (src/http: keep-alive Agent, time and size bounds, redaction at capture) against a
 * fresh reference target, with no test logic and no waits. One stream per suite, at most
 * `concurrency` streams at a time (as many as the run has workers).
 *
 * A fresh target hands out other ids and secrets, so each stream learns a mapping as it goes:
 * where an answer differs from the recorded one, an id-like string of the recording (uuid, key
 * secret) stands for the new one, and later requests are rewritten with it. The first mapping
 * learnt for a string wins (a create answers with one id; listings only confirm it).
 */
import type { Dispatcher } from 'undici';
import { createDispatcher } from '../http/client.ts';
import { SecretRegistry } from '../http/redact.ts';
import { performRequest, type TransportOptions } from '../http/transport.ts';
import type { RecordedRequest } from './recording.ts';

/** Strings worth mapping: ids, secrets, cursors (no spaces, at least 16 characters). */
const ID_LIKE = /^[A-Za-z0-9_-]{16,200}$/;
const ID_TOKEN = /[A-Za-z0-9_-]{16,200}/g;

export interface ReplayTarget {
  /** Origin of the fresh target, e.g. http://127.0.0.1:4010 (paths are replayed as recorded). */
  origin: string;
  dispatcher: Dispatcher;
  timeoutMs: number;
  maxResponseBytes: number;
}

export interface StreamReplay {
  group: string;
  requests: number;
  durationMs: number;
  /** Answers whose status equals the recorded one. */
  sameStatus: number;
}

export interface ReplayResult {
  /** From the first request to the last answer, all streams. */
  durationMs: number;
  requests: number;
  sameStatus: number;
  transportErrors: number;
  streams: StreamReplay[];
}

/** Splits a recording into its groups, in order of first appearance. */
export function streamsOf(records: readonly RecordedRequest[]): { group: string; records: RecordedRequest[] }[] {
  const byGroup = new Map<string, RecordedRequest[]>();
  for (const r of records) {
    let list = byGroup.get(r.group);
    if (!list) byGroup.set(r.group, (list = []));
    list.push(r);
  }
  return [...byGroup].map(([group, list]) => ({ group, records: list }));
}

/** Old → new strings learnt while replaying one stream. */
class IdMap {
  private readonly map = new Map<string, string>();
  private readonly targets = new Set<string>();

  rewrite(text: string): string {
    if (this.map.size === 0) return text;
    return text.replace(ID_TOKEN, (t) => this.map.get(t) ?? t);
  }

  /** Walks the recorded and the fresh answer side by side and learns where id-like strings differ. */
  learn(recorded: unknown, fresh: unknown, secrets: SecretRegistry, depth = 0): void {
    if (depth > 64) return;
    if (typeof recorded === 'string' && typeof fresh === 'string') {
      if (recorded !== fresh && ID_LIKE.test(recorded) && ID_LIKE.test(fresh) && !this.map.has(recorded) && !this.targets.has(fresh)) {
        this.map.set(recorded, fresh);
        this.targets.add(fresh);
      }
      return;
    }
    if (Array.isArray(recorded) && Array.isArray(fresh)) {
      for (let i = 0; i < Math.min(recorded.length, fresh.length); i++) this.learn(recorded[i], fresh[i], secrets, depth + 1);
      return;
    }
    if (recorded && fresh && typeof recorded === 'object' && typeof fresh === 'object') {
      const r = recorded as Record<string, unknown>;
      const f = fresh as Record<string, unknown>;
      for (const k of Object.keys(r)) {
        if (!(k in f)) continue;
        // A secret handed out by the control protocol: the client registers it for redaction.
        if (k === 'secret' && typeof f[k] === 'string') secrets.add(f[k] as string, 'replayed_key');
        this.learn(r[k], f[k], secrets, depth + 1);
      }
    }
  }
}

function parseJson(text: string | undefined): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A Buffer body that is valid UTF-8 can be rewritten as text; any other is sent byte for byte. */
function bodyText(body: string | Buffer | undefined): string | undefined {
  if (body === undefined || typeof body === 'string') return body;
  const text = body.toString('utf8');
  return Buffer.from(text, 'utf8').equals(body) ? text : undefined;
}

async function replayStream(group: string, records: readonly RecordedRequest[], target: ReplayTarget, seq: { n: number }): Promise<StreamReplay & { transportErrors: number }> {
  const ids = new IdMap();
  const secrets = new SecretRegistry();
  const transport: TransportOptions = {
    dispatcher: target.dispatcher,
    secrets,
    timeoutMs: target.timeoutMs,
    maxResponseBytes: target.maxResponseBytes,
    maxDecompressedBytes: target.maxResponseBytes,
    allowInsecureHttp: false,
  };
  let sameStatus = 0;
  let transportErrors = 0;
  const started = performance.now();
  for (const r of records) {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(r.headers)) if (k !== 'host' && k !== 'content-length') headers[k] = ids.rewrite(v);
    const text = bodyText(r.body);
    const body = text !== undefined ? ids.rewrite(text) : r.body;
    const { exchange, rawText } = await performRequest(
      { method: r.method, url: target.origin + ids.rewrite(r.path), headers, ...(body !== undefined ? { body } : {}) },
      transport,
      `replay-${++seq.n}`,
      true,
    );
    if (exchange.error && !exchange.response) transportErrors++;
    if (exchange.response?.status === r.status) sameStatus++;
    ids.learn(parseJson(r.responseBody.toString('utf8')), parseJson(rawText), secrets);
    const loc = r.responseHeaders['location'];
    const freshLoc = exchange.response?.headers['location'];
    if (loc && freshLoc) ids.learn(loc.split('/').pop(), freshLoc.split('/').pop(), secrets);
  }
  return { group, requests: records.length, durationMs: performance.now() - started, sameStatus, transportErrors };
}

/** Replays the recording, one stream per group, `concurrency` streams at a time. */
export async function replayRecording(records: readonly RecordedRequest[], target: ReplayTarget, concurrency: number): Promise<ReplayResult> {
  const streams = streamsOf(records);
  const results: (StreamReplay & { transportErrors: number })[] = new Array(streams.length);
  const seq = { n: 0 };
  let next = 0;
  const started = performance.now();
  const worker = async (): Promise<void> => {
    for (let i = next++; i < streams.length; i = next++) results[i] = await replayStream(streams[i]!.group, streams[i]!.records, target, seq);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, streams.length)) }, worker));
  const durationMs = performance.now() - started;
  return {
    durationMs,
    requests: results.reduce((n, s) => n + s.requests, 0),
    sameStatus: results.reduce((n, s) => n + s.sameStatus, 0),
    transportErrors: results.reduce((n, s) => n + s.transportErrors, 0),
    streams: results.map(({ transportErrors: _, ...s }) => s),
  };
}

/** Where and how a replay goes when it brings its own keep-alive Agent (see replayTo). */
export interface ReplayJob {
  origin: string;
  timeoutMs: number;
  maxResponseBytes: number;
  concurrency: number;
}

/** Replays the recording against `job.origin` through a keep-alive Agent of its own, closed at the end. */
export async function replayTo(records: readonly RecordedRequest[], job: ReplayJob): Promise<ReplayResult> {
  const dispatcher = createDispatcher({ connectTimeoutMs: job.timeoutMs });
  try {
    return await replayRecording(records, { origin: job.origin, dispatcher, timeoutMs: job.timeoutMs, maxResponseBytes: job.maxResponseBytes }, job.concurrency);
  } finally {
    await dispatcher.close();
  }
}
