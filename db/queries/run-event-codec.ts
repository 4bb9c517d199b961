/**
 * How a run's events are stored (docs/performance.md#stored-bytes-per-run), with no database access:
 * the request deltas and per-payload deflate of a running run's rows, and the packs a finished
 * run's events are stored in. Every decoder here returns the events exactly as the engine emitted
 * them (same JSON, key order included); db/queries/runs.ts reads the rows and packs and calls these.
 */
import { promisify } from "node:util";
import {
  brotliCompress,
  brotliCompressSync,
  brotliDecompress,
  brotliDecompressSync,
  constants,
  deflateRawSync,
  inflateRawSync,
} from "node:zlib";
import type { RunEvent } from "@/lib/reflect/events";

/** One stored event: a `run_events` row, or one entry of a pack. */
export interface StoredEvent {
  seq: number;
  at: number;
  type: string;
  iteration: number | null;
  payload: unknown;
}

/** The event as every reader sees it (the shape getRunEvents has always returned). */
export function toRunEvent(runId: string, e: StoredEvent): RunEvent {
  return {
    runId,
    seq: e.seq,
    at: e.at,
    type: e.type,
    ...(e.iteration === null ? {} : { iteration: e.iteration }),
    payload: e.payload,
  } as RunEvent;
}

// ---------- llm.request messages stored as a delta against the previous request ----------

/**
 * A model request repeats the whole conversation so far: stored whole, a run's requests were most
 * of its bytes. Each `llm.request` after the first (of a run's rows, or of a pack) is stored with
 * `messagesFrom: {seq}` (the previous request) and, in `messages`, each message that request
 * already sent as its index there (a number; a message is always an object), a tool message
 * repeating a search result as a reference to it, and every other message whole. Requests stored
 * before this, or sharing no message with the previous one, are stored whole.
 */
interface MessagesFrom {
  seq: number;
}
type StoredRequest = { messages: unknown[]; messagesFrom?: MessagesFrom } & Record<string, unknown>;

/** A tool message stored as a reference to the `tool.result` at `contentOf` (its content is that result's). */
interface ToolMessageRef {
  role: "tool";
  content: "";
  contentOf: number;
}
const isToolRef = (m: unknown): m is ToolMessageRef =>
  typeof m === "object" &&
  m !== null &&
  (m as ToolMessageRef).role === "tool" &&
  typeof (m as ToolMessageRef).contentOf === "number";

/**
 * The stored form of each event in turn (events in seq order): a request as its delta against the
 * previous one, a tool message whose content is exactly a search result already seen as
 * `{role, tool_call_id, content: "", contentOf: <its seq>}`; every other payload as it is.
 */
export function createDeltaEncoder(): (e: { seq: number; type: string; payload: unknown }) => unknown {
  let previous: { seq: number; messages: string[] } | null = null;
  const results = new Map<string, { seq: number; content: string }>();
  // A message object read back is shared by every request that repeats it (expandDeltas): its JSON
  // is computed once, not once per request (a long run's requests repeat hundreds of messages).
  const jsonOf = new WeakMap<object, string>();
  const toJson = (m: unknown): string => {
    if (typeof m !== "object" || m === null) return JSON.stringify(m);
    let json = jsonOf.get(m);
    if (json === undefined) {
      json = JSON.stringify(m);
      jsonOf.set(m, json);
    }
    return json;
  };
  return (e) => {
    if (e.type === "tool.result") {
      const p = e.payload as { callId?: unknown; content?: unknown };
      if (typeof p.callId === "string" && typeof p.content === "string") {
        results.set(p.callId, { seq: e.seq, content: p.content });
      }
      return e.payload;
    }
    if (e.type !== "llm.request") return e.payload;
    const payload = e.payload as StoredRequest;
    const json = payload.messages.map(toJson);
    const base = previous;
    previous = { seq: e.seq, messages: json };
    if (!base) return payload;
    const index = new Map<string, number>();
    base.messages.forEach((m, i) => {
      if (!index.has(m)) index.set(m, i);
    });
    let shared = 0;
    const messages = payload.messages.map((m, k) => {
      const i = index.get(json[k] as string);
      if (i !== undefined) {
        shared++;
        return i;
      }
      const tool = m as { role?: unknown; tool_call_id?: unknown; content?: unknown };
      const result = typeof tool.tool_call_id === "string" ? results.get(tool.tool_call_id) : undefined;
      if (tool.role === "tool" && result && result.content === tool.content) {
        shared++;
        return { ...tool, content: "", contentOf: result.seq };
      }
      return m;
    });
    if (shared === 0) return payload;
    return { ...payload, messages, messagesFrom: { seq: base.seq } };
  };
}

/** What a delta refers to that precedes the events being expanded: requests' messages and results' text, by seq. */
export interface EarlierEvents {
  requests: Map<number, unknown[]>;
  results: Map<number, string>;
}

export const noEarlierEvents = (): EarlierEvents => ({ requests: new Map(), results: new Map() });

/** Notes an event as emitted (whole) for the deltas after it. */
export function noteEarlier(known: EarlierEvents, e: { seq: number; type: string; payload: unknown }): void {
  const p = e.payload as { messages?: unknown; content?: unknown } | null;
  if (!p || typeof p !== "object") return;
  if (e.type === "llm.request" && Array.isArray(p.messages)) known.requests.set(e.seq, p.messages);
  if (e.type === "tool.result" && typeof p.content === "string") known.results.set(e.seq, p.content);
}

/** Whether some delta among `rows` (seq order, inflated) refers to an event neither `known` nor the rows hold. */
export function refersBefore(rows: readonly StoredEvent[], known: EarlierEvents): boolean {
  const requests = new Set(known.requests.keys());
  const results = new Set(known.results.keys());
  for (const r of rows) {
    if (r.type === "tool.result") results.add(r.seq);
    if (r.type !== "llm.request") continue;
    const stored = r.payload as StoredRequest;
    if (stored.messagesFrom && !requests.has(stored.messagesFrom.seq)) return true;
    if (stored.messagesFrom && stored.messages.some((m) => isToolRef(m) && !results.has(m.contentOf))) return true;
    requests.add(r.seq);
  }
  return false;
}

/**
 * Rebuilds, in place, the messages of the requests among `rows` (seq order, inflated) stored as
 * deltas, from the rows themselves and `known`; a delta whose base is in neither fails loudly
 * rather than showing a wrong conversation.
 */
export function expandDeltas(runId: string, rows: StoredEvent[], known: EarlierEvents): void {
  for (const row of rows) {
    if (row.type === "tool.result") {
      noteEarlier(known, row);
      continue;
    }
    if (row.type !== "llm.request") continue;
    const stored = row.payload as StoredRequest;
    if (stored.messagesFrom) {
      const { messagesFrom, ...rest } = stored;
      const base = known.requests.get(messagesFrom.seq);
      const messages = stored.messages.map((m) => {
        if (typeof m === "number") return base?.[m];
        if (!isToolRef(m)) return m;
        const content = known.results.get(m.contentOf);
        if (content === undefined) return undefined;
        const { contentOf: _, ...message }: Record<string, unknown> = { ...m };
        message.content = content;
        return message;
      });
      if (!base || messages.some((m) => m === undefined)) {
        throw new Error(`run ${runId}: llm.request ${row.seq} refers to request ${messagesFrom.seq}, which is missing`);
      }
      row.payload = { ...rest, messages };
    }
    noteEarlier(known, row);
  }
}

// ---------- a running run's rows: the two big texts deflated one payload at a time ----------

/**
 * A row's two big texts — a request's messages (after the delta above) and a search's result
 * `content` — are stored deflated (base64, as `messagesZ` / `contentZ` beside an empty `messages` /
 * `content`) when that is shorter. Nothing reads them in SQL, and every read inflates them first.
 */
const DEFLATE_OVER_CHARS = 400;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const deflateText = (text: string) => deflateRawSync(Buffer.from(text, "utf8")).toString("base64");
const inflateText = (base64: string) => inflateRawSync(Buffer.from(base64, "base64")).toString("utf8");

export function deflatePayload(type: string, payload: unknown): unknown {
  if (type === "llm.request") {
    const request = payload as StoredRequest;
    const json = JSON.stringify(request.messages);
    if (json.length <= DEFLATE_OVER_CHARS) return request;
    const packed = deflateText(json);
    return packed.length < json.length ? { ...request, messages: [], messagesZ: packed } : request;
  }
  if (type === "tool.result") {
    const result = payload as { content?: unknown };
    if (typeof result.content !== "string" || result.content.length <= DEFLATE_OVER_CHARS) return payload;
    // UTF-8 has no lone surrogate: deflating one would read back as U+FFFD. Such text stays whole
    // (its JSON escapes it). A request's messages are deflated as JSON, which escapes them too.
    if (LONE_SURROGATE.test(result.content)) return payload;
    const packed = deflateText(result.content);
    return packed.length < result.content.length ? { ...result, content: "", contentZ: packed } : payload;
  }
  return payload;
}

/** Inflates, in place, what deflatePayload deflated (keys keep their order: the emptied key is refilled). */
export function inflateRow(row: { type: string; payload: unknown }): void {
  const p = row.payload as Record<string, unknown> | null;
  if (!p || typeof p !== "object") return;
  if (row.type === "llm.request" && typeof p.messagesZ === "string") {
    const { messagesZ, ...rest } = p;
    rest.messages = JSON.parse(inflateText(messagesZ));
    row.payload = rest;
  } else if (row.type === "tool.result" && typeof p.contentZ === "string") {
    const { contentZ, ...rest } = p;
    rest.content = inflateText(contentZ);
    row.payload = rest;
  }
}

// ---------- a finished run's packs ----------

/**
 * A finished run's events are stored in packs (`run_event_packs`) instead of one row each: each
 * pack holds consecutive events, their payloads delta-encoded as above but among the pack's own
 * events only (a pack is read without any other), compressed together. Memories, ids and
 * arguments repeat across a run's events, which one payload at a time could not use. A typical run
 * is one pack; a long one is split so that reading its first screen or the events after a seq
 * decompresses a few packs, not the whole run.
 */
export const PACK_MAX_EVENTS = 256;
/** Stored (delta-encoded) JSON per pack at most, before compression. */
export const PACK_MAX_CHARS = 256 * 1024;

/**
 * Compression of a pack's JSON: Brotli at quality 5 with a 256 KiB window (a pack's JSON is at most
 * PACK_MAX_CHARS). Measured on the demo's runs: 5.45 KB a run in 0.6 ms; deflate 5.8 KB in 0.5 ms;
 * Brotli 9 5.43 KB in 8 ms, 11 4.8 KB in 40 ms. Kept per pack, so another format can be added beside it.
 */
export const PACK_FORMAT_BROTLI = 1;

/**
 * A pack bigger than this (one oversized event: a model's 30 MB answer took 0.45 s to compress and
 * 0.2 s to read back) is compressed and decompressed on libuv's thread pool, not the server's
 * thread; a typical pack (kilobytes) stays synchronous, which is quicker for it.
 */
const OFF_THREAD_OVER_BYTES = 1024 * 1024;
const brotliCompressAsync = promisify(brotliCompress);
const brotliDecompressAsync = promisify(brotliDecompress);

async function compress(json: string): Promise<Buffer> {
  const input = Buffer.from(json, "utf8");
  const options = {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: 5,
      [constants.BROTLI_PARAM_LGWIN]: 18,
      [constants.BROTLI_PARAM_SIZE_HINT]: json.length,
    },
  };
  return input.length > OFF_THREAD_OVER_BYTES
    ? brotliCompressAsync(input, options)
    : brotliCompressSync(input, options);
}

async function decompress(runId: string, format: number, data: Uint8Array): Promise<string> {
  if (format !== PACK_FORMAT_BROTLI) {
    throw new Error(`run ${runId}: events stored in pack format ${format}, which this version cannot read`);
  }
  const out =
    data.byteLength > OFF_THREAD_OVER_BYTES / 8 ? await brotliDecompressAsync(data) : brotliDecompressSync(data);
  return out.toString("utf8");
}

export interface Pack {
  firstSeq: number;
  lastSeq: number;
  events: number;
  format: number;
  data: Buffer;
}

/** The packs of events as emitted (seq order): split at PACK_MAX_EVENTS or PACK_MAX_CHARS. */
export async function encodePacks(events: readonly RunEvent[]): Promise<Pack[]> {
  const packs: Omit<Pack, "data">[] = [];
  const json: string[] = [];
  let part: string[] = [];
  let chars = 0;
  let first = 0;
  let last = 0;
  let encode = createDeltaEncoder();
  const close = () => {
    if (part.length === 0) return;
    packs.push({ firstSeq: first, lastSeq: last, events: part.length, format: PACK_FORMAT_BROTLI });
    json.push(`[${part.join(",")}]`);
    part = [];
    chars = 0;
    encode = createDeltaEncoder();
  };
  for (const e of events) {
    const entry = () => JSON.stringify([e.seq, e.at, e.type, e.iteration ?? null, encode(e)]);
    let json = entry();
    if (part.length > 0 && (part.length >= PACK_MAX_EVENTS || chars + json.length > PACK_MAX_CHARS)) {
      close();
      // The first event of a pack is stored whole (its deltas may refer only to the pack's own events).
      json = entry();
    }
    if (part.length === 0) first = e.seq;
    last = e.seq;
    part.push(json);
    chars += json.length + 1;
  }
  close();
  const data: Buffer[] = [];
  for (const text of json) data.push(await compress(text));
  return packs.map((p, i) => ({ ...p, data: data[i]! }));
}

/** A pack's events as emitted, in seq order. */
export async function decodePack(runId: string, format: number, data: Uint8Array): Promise<RunEvent[]> {
  const entries = JSON.parse(await decompress(runId, format, data)) as [
    number,
    number,
    string,
    number | null,
    unknown,
  ][];
  const rows: StoredEvent[] = entries.map(([seq, at, type, iteration, payload]) => ({
    seq,
    at,
    type,
    iteration,
    payload,
  }));
  expandDeltas(runId, rows, noEarlierEvents());
  return rows.map((r) => toRunEvent(runId, r));
}
