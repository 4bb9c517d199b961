/**
 * `import --from hindsight`: reads one bank from a Hindsight server through its public HTTP API and
 * imports it as a bank here (docs/hindsight.md has the mapping table and the endpoints used).
 * Everything is read and validated first; the write is then one `importBundle` (lib/server/services/bundle-io.ts),
 * so a failure anywhere — a refused key, a timeout, a malformed field — writes nothing.
 * The API key goes in the Authorization header only: it is never logged, stored or echoed.
 */
import type { z } from "zod";
import type { Db } from "@/db/client";
import type { BundleInput } from "@/lib/contracts/bundle";
import { AppError, formatPath } from "@/lib/contracts/errors";
import {
  type HindsightImportBody,
  type HindsightImportResult,
  type HindsightSkipped,
  HsBankProfile,
  HsDirectivePage,
  HsMemoryDetail,
  HsMemoryPage,
  type HsMemoryUnit,
  HsMentalModelPage,
} from "@/lib/contracts/hindsight";
import { importBundle, tombstonedModelIds } from "@/lib/server/services/bundle-io";
import { readBounded } from "@/lib/text/bounded-body";
import { admit } from "../runtime/admission";

export interface HindsightImportOptions {
  /** The server's base URL (http or https; a path prefix is kept). */
  baseUrl: string;
  /** The bank's id on the Hindsight server. */
  bankId: string;
  /** The bank id here (default: the Hindsight id, when it is a lowercase slug). */
  localBankId?: string;
  apiKey?: string;
  /** Replace a bank here of the same id (default: refuse, like a bundle import). */
  replace?: boolean;
  /** Per request, covering the whole body (default 30 s). */
  timeoutMs?: number;
  /** All requests together (default 30 min): a server answering each page just in time still ends. */
  totalTimeoutMs?: number;
  /** Items per page asked for (default 500; Hindsight's own default is 100). */
  pageSize?: number;
  /** Stops the import (nothing imported): the API's request, when its client goes away. */
  signal?: AbortSignal;
  /** Memories of all types past which the import is refused (default 200,000). */
  maxMemories?: number;
  /** One response body past this is refused (default 32 MiB). */
  maxResponseBytes?: number;
  /** All response bodies together past this are refused (default 1 GiB): pages that never end stop here. */
  maxTotalBytes?: number;
}

export const HINDSIGHT_DEFAULT_TIMEOUT_MS = 30_000;
/** The whole import's reading, all requests together. */
export const HINDSIGHT_DEFAULT_TOTAL_TIMEOUT_MS = 30 * 60_000;
const DEFAULT_PAGE = 500;
const DEFAULT_MAX_MEMORIES = 200_000;
/** One response body past this is refused (a page of 500 memories is well under 1 MB). */
const MAX_RESPONSE_BYTES = 32 * 1_048_576;
/** All bodies of one import together past this are refused (a server paging forever, or huge pages). */
const MAX_TOTAL_BYTES = 1_024 * 1_048_576;
/** Observation source look-ups in flight at once. */
const SOURCE_CONCURRENCY = 4;

const LOCAL_BANK_ID = /^[a-z0-9][a-z0-9_-]*$/;

/** The base URL, checked: http(s) only, no user:password (it would be logged with the URL), no query. */
export function parseHindsightBaseUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new AppError("invalid_input", `not a URL: ${JSON.stringify(raw.slice(0, 200))}`, {
      fieldErrors: { baseUrl: ["not a URL"] },
    });
  }
  const refuse = (why: string) =>
    new AppError("invalid_input", `refused Hindsight URL: ${why}`, { fieldErrors: { baseUrl: [why] } });
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw refuse(`only http and https URLs are read (got ${url.protocol.replace(/:$/, "")})`);
  if (url.username || url.password) throw refuse("credentials in the URL; pass the key with --api-key");
  if (url.search || url.hash) throw refuse("a query or fragment in the base URL");
  url.pathname = url.pathname.replace(/\/+$/, "");
  return url;
}

/** The remote bank id and the key, checked before any request (shared with `askHindsight`). */
export function checkRemoteInput(remoteId: string, apiKey: string | undefined): void {
  if (!remoteId || remoteId.length > 200)
    throw new AppError("invalid_input", "the Hindsight bank id must be 1–200 characters", {
      fieldErrors: { bankId: ["1–200 characters"] },
    });
  // "." and ".." would be resolved away as path segments, reading another endpoint.
  if (remoteId === "." || remoteId === "..")
    throw new AppError("invalid_input", `"${remoteId}" is not a Hindsight bank id`, {
      fieldErrors: { bankId: ["not a bank id"] },
    });
  // A key a header cannot carry is refused here, by a message that does not echo it (fetch's own would).
  if (apiKey !== undefined && apiKey !== "" && !/^[\x21-\x7e]{1,4096}$/.test(apiKey))
    throw new AppError(
      "invalid_input",
      "the API key has characters an HTTP header cannot carry (spaces, line breaks, non-ASCII)",
      {
        fieldErrors: { apiKey: ["printable ASCII without spaces"] },
      },
    );
}

/** The bank id here (an import's or an asked run's): a lowercase slug, else --as is asked for. */
export function checkLocalBankId(localId: string): string {
  if (!LOCAL_BANK_ID.test(localId) || localId.length > 200)
    throw new AppError(
      "invalid_input",
      `"${localId.slice(0, 200)}" is not a bank id here (a lowercase slug); name the local bank with --as <id>`,
      { fieldErrors: { localBankId: ["a lowercase slug: a-z, 0-9, _ and -"] } },
    );
  return localId;
}

/** The URL as shown in output and errors: origin and path only. */
export const shown = (url: URL) => `${url.origin}${url.pathname.replace(/\/+$/, "")}`;

export class HindsightClient {
  requests = 0;
  /** Body bytes read so far, all requests together (decoded: a gzip body counts as it unpacks). */
  bytesRead = 0;
  constructor(
    private readonly base: URL,
    private readonly apiKey: string | undefined,
    private readonly timeoutMs: number,
    private readonly maxBytes = MAX_RESPONSE_BYTES,
    private readonly maxTotalBytes = MAX_TOTAL_BYTES,
    /** When all requests together must be done (epoch ms; default: no such bound). */
    private readonly deadline = Number.POSITIVE_INFINITY,
    private readonly totalTimeoutMs = 0,
    /** The caller went away: the request in flight is aborted and none is sent after it. */
    private readonly signal?: AbortSignal,
  ) {}

  /** `s` with the key cut out: a server that echoes it (in an error, an answer) never puts it in a message or a row. */
  redact(s: string): string {
    return this.apiKey ? s.split(this.apiKey).join("[redacted]") : s;
  }

  /** GET `path` (under /v1/default/banks/{bank}), validated by `schema`; every failure names the request. */
  get<S extends z.ZodType>(path: string, query: Record<string, string>, schema: S): Promise<z.output<S>>;
  get<S extends z.ZodType>(
    path: string,
    query: Record<string, string>,
    schema: S,
    options: { missingIsNull: true },
  ): Promise<z.output<S> | null>;
  async get<S extends z.ZodType>(
    path: string,
    query: Record<string, string>,
    schema: S,
    options: { missingIsNull?: boolean } = {},
  ): Promise<z.output<S> | null> {
    try {
      return await this.request("GET", path, query, undefined, schema);
    } catch (err) {
      if (options.missingIsNull && err instanceof AppError && err.details.fieldErrors?.status?.[0] === "404")
        return null;
      throw err;
    }
  }

  /** POST a JSON body (the reflect endpoint), validated the same way. */
  post<S extends z.ZodType>(path: string, body: unknown, schema: S): Promise<z.output<S>> {
    return this.request("POST", path, {}, body, schema);
  }

  private async request<S extends z.ZodType>(
    method: "GET" | "POST",
    path: string,
    query: Record<string, string>,
    body: unknown,
    schema: S,
  ): Promise<z.output<S>> {
    const qs = new URLSearchParams(query).toString();
    const label = `${method} ${path}${qs ? `?${qs}` : ""}`;
    const url = `${shown(this.base)}${path}${qs ? `?${qs}` : ""}`;
    // Only the reflect request is a POST: it stores a run, not a bank.
    const outcome = method === "POST" ? "no run was stored" : "nothing was imported";
    const fail = (why: string) => new AppError("upstream_failed", `Hindsight ${label}: ${why}; ${outcome}.`);
    const gone = () => fail("the import was abandoned by its caller (the page closed or the client went away)");
    if (this.signal?.aborted) throw gone();
    const controller = new AbortController();
    const onGone = () => controller.abort();
    this.signal?.addEventListener("abort", onGone, { once: true });
    const left = this.deadline - Date.now();
    if (left <= 0)
      throw fail(`the import took longer than ${this.totalTimeoutMs} ms in all (${this.requests} requests)`);
    const overall = left < this.timeoutMs;
    const timer = setTimeout(() => controller.abort(), Math.min(this.timeoutMs, left));
    let text: string;
    let status: number;
    try {
      this.requests++;
      const headers: Record<string, string> = { accept: "application/json" };
      if (this.apiKey) headers.authorization = `Bearer ${this.apiKey}`;
      if (body !== undefined) headers["content-type"] = "application/json";
      // A redirect is refused, not followed: it could lead the key to another host.
      const res = await fetch(url, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: controller.signal,
        redirect: "error",
      });
      status = res.status;
      const total = this.maxTotalBytes - this.bytesRead;
      text = await readCapped(res, Math.min(this.maxBytes, total), () =>
        this.maxBytes <= total
          ? fail(`the response is larger than ${this.maxBytes.toLocaleString("en-US")} bytes`)
          : fail(
              `the server sent more than ${this.maxTotalBytes.toLocaleString("en-US")} bytes in all (${this.requests} requests)`,
            ),
      );
      this.bytesRead += Buffer.byteLength(text);
    } catch (err) {
      if (err instanceof AppError) throw err;
      if (this.signal?.aborted) throw gone();
      if (controller.signal.aborted)
        throw fail(
          overall
            ? `the import took longer than ${this.totalTimeoutMs} ms in all (${this.requests} requests)`
            : `no complete answer within ${this.timeoutMs} ms`,
        );
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      throw fail(`cannot reach the server (${cause?.code ?? cause?.message ?? (err as Error).message})`);
    } finally {
      clearTimeout(timer);
      this.signal?.removeEventListener("abort", onGone);
    }
    if (status === 401 || status === 403)
      throw fail(`the server refused the request (HTTP ${status}): check the API key (--api-key or HINDSIGHT_API_KEY)`);
    if (status === 404 && path.endsWith("/profile"))
      throw new AppError(
        "not_found",
        `Hindsight has no bank "${decodeURIComponent(path.split("/")[4] ?? "")}" at ${shown(this.base)}.`,
      );
    if (status < 200 || status > 299) {
      const err = fail(`HTTP ${status}${detail(text, (s) => this.redact(s))}`);
      throw new AppError("upstream_failed", err.message, { fieldErrors: { status: [String(status)] } });
    }
    let json: unknown;
    try {
      json = redactDeep(JSON.parse(text), (s) => this.redact(s));
    } catch {
      throw fail("the response is not JSON");
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = issue ? formatPath(issue.path) || "(root)" : "(root)";
      throw fail(`malformed response: ${field}: ${issue?.message ?? "invalid"}`);
    }
    return parsed.data;
  }
}

/**
 * FastAPI's `{"detail": "…"}`, shortened, for a refused request: redacted before it is cut, so a
 * key that straddles the cut leaves no piece of itself behind.
 */
function detail(text: string, redact: (s: string) => string): string {
  try {
    const d = (JSON.parse(text) as { detail?: unknown }).detail;
    if (typeof d === "string") return `: ${redact(d).slice(0, 200)}`;
  } catch {}
  return "";
}

/** Every string in a parsed JSON value (keys included) through `redact`. */
function redactDeep(v: unknown, redact: (s: string) => string): unknown {
  if (typeof v === "string") return redact(v);
  if (Array.isArray(v)) return v.map((x) => redactDeep(x, redact));
  if (v && typeof v === "object")
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [redact(k), redactDeep(x, redact)]));
  return v;
}

/** The body as text, refused past the cap while it streams (the timeout covers this read too). */
async function readCapped(res: Response, maxBytes: number, tooLarge: () => AppError): Promise<string> {
  return new TextDecoder().decode(await readBounded(res.body, maxBytes, tooLarge));
}

/** An ISO time with its offset; a naive Hindsight time is read as UTC. Empty → null. */
function isoTime(s: string | null | undefined): string | null {
  if (!s) return null;
  const t = Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(s) ? s : `${s}Z`);
  return Number.isNaN(t) ? null : new Date(t).toISOString();
}

/** Reads the bank from the server, maps it to a bundle and imports it in one transaction. */
export async function importFromHindsight(db: Db, options: HindsightImportOptions): Promise<HindsightImportResult> {
  const base = parseHindsightBaseUrl(options.baseUrl);
  const remoteId = options.bankId;
  checkRemoteInput(remoteId, options.apiKey);
  const localId = checkLocalBankId(options.localBankId ?? remoteId);
  const client = new HindsightClient(
    base,
    options.apiKey || undefined,
    options.timeoutMs ?? HINDSIGHT_DEFAULT_TIMEOUT_MS,
    options.maxResponseBytes,
    options.maxTotalBytes,
    Date.now() + (options.totalTimeoutMs ?? HINDSIGHT_DEFAULT_TOTAL_TIMEOUT_MS),
    options.totalTimeoutMs ?? HINDSIGHT_DEFAULT_TOTAL_TIMEOUT_MS,
    options.signal,
  );
  const pageSize = options.pageSize ?? DEFAULT_PAGE;
  const maxMemories = options.maxMemories ?? DEFAULT_MAX_MEMORIES;
  const bankPath = `/v1/default/banks/${encodeURIComponent(remoteId)}`;
  const skipped: HindsightSkipped[] = [];
  /** Tags longer than a tag here may be (100 characters) are dropped, and counted. */
  let droppedTags = 0;
  const cleanTags = (tags: string[] | null | undefined) => {
    const trimmed = (tags ?? []).map((t) => t.trim()).filter((t) => t.length > 0);
    const kept = trimmed.filter((t) => t.length <= 100);
    droppedTags += trimmed.length - kept.length;
    return [...new Set(kept)];
  };
  const skip = (kind: string, count: number, reason: string) => {
    if (count > 0) skipped.push({ kind, count, reason });
  };

  const profile = await client.get(`${bankPath}/profile`, {}, HsBankProfile);

  let memoryCount = 0;
  /** Every memory id listed, all types together: one id under two types is the server's fault. */
  const seen = new Set<string>();
  const listAll = async (type: "world" | "experience" | "observation") => {
    const out: HsMemoryUnit[] = [];
    for (let offset = 0; ; ) {
      const page = await client.get(
        `${bankPath}/memories/list`,
        { type, limit: String(pageSize), offset: String(offset) },
        HsMemoryPage,
      );
      for (const [i, item] of page.items.entries()) {
        const itemType = item.fact_type ?? item.type;
        if (itemType && itemType !== type)
          throw new AppError(
            "upstream_failed",
            `Hindsight GET ${bankPath}/memories/list?type=${type}: items[${i}].fact_type is "${itemType.slice(0, 200)}", not "${type}" (the server ignored the type filter); nothing was imported.`,
          );
        // A server that ignores `offset` would page forever: the same id twice ends it, refused.
        if (seen.has(item.id))
          throw new AppError(
            "upstream_failed",
            `Hindsight GET ${bankPath}/memories/list?type=${type}&offset=${offset}: items[${i}].id "${item.id.slice(0, 200)}" was already listed (the server does not page, or lists one memory under two types); nothing was imported.`,
          );
        seen.add(item.id);
        out.push(item);
      }
      memoryCount += page.items.length;
      if (memoryCount > maxMemories)
        throw new AppError(
          "invalid_input",
          `the Hindsight bank has more than ${maxMemories.toLocaleString("en-US")} memories; nothing was imported.`,
        );
      offset += page.items.length;
      // `total` ends the listing, not a short page: a server may cap `limit` below the one asked for.
      if (page.items.length === 0 || offset >= page.total) break;
    }
    return out;
  };

  /** Lists without a `total` (mental models, directives): paged until an empty page. */
  const listPaged = async <S extends z.ZodType<{ items: { id: string }[] }>>(
    path: string,
    query: Record<string, string>,
    schema: S,
  ) => {
    const out: z.output<S>["items"] = [];
    const seen = new Set<string>();
    const limit = Math.min(pageSize, 1000); // the document's maximum for these lists
    for (let offset = 0; ; ) {
      const page = await client.get(path, { ...query, limit: String(limit), offset: String(offset) }, schema);
      if (page.items.length === 0) break;
      for (const [i, item] of page.items.entries()) {
        if (seen.has(item.id))
          throw new AppError(
            "upstream_failed",
            `Hindsight GET ${path}?offset=${offset}: items[${i}].id "${item.id.slice(0, 200)}" was already listed (the server does not page); nothing was imported.`,
          );
        seen.add(item.id);
      }
      out.push(...page.items);
      offset += page.items.length;
      if (out.length > 100_000)
        throw new AppError("invalid_input", `Hindsight ${path} lists more than 100,000 items; nothing was imported.`);
    }
    return out;
  };

  const world = await listAll("world");
  const experience = await listAll("experience");
  const observationUnits = await listAll("observation");
  const models = await listPaged(`${bankPath}/mental-models`, { detail: "full" }, HsMentalModelPage);
  const directives = await listPaged(`${bankPath}/directives`, { active_only: "true" }, HsDirectivePage);

  // Observations' sources: the list does not carry them, `GET /memories/{id}` does.
  let vanished = 0;
  const sourcesOf = new Map<string, string[]>();
  for (let i = 0; i < observationUnits.length; i += SOURCE_CONCURRENCY) {
    await Promise.all(
      observationUnits.slice(i, i + SOURCE_CONCURRENCY).map(async (o) => {
        // An observation re-consolidated away between the list and this read is a 404: no sources, counted.
        const d = await client.get(`${bankPath}/memories/${encodeURIComponent(o.id)}`, {}, HsMemoryDetail, {
          missingIsNull: true,
        });
        if (d === null) vanished++;
        sourcesOf.set(o.id, d?.source_memory_ids ?? []);
      }),
    );
  }

  // ---- mapping (docs/hindsight.md#mapping) ----
  const facts: NonNullable<BundleInput["facts"]> = [];
  let invalidated = 0;
  let untimed = 0;
  for (const [kind, units] of [
    ["world", world],
    ["experience", experience],
  ] as const) {
    for (const u of units) {
      if (u.state && u.state !== "valid") {
        invalidated++;
        continue;
      }
      const recordedAt = isoTime(u.mentioned_at) ?? isoTime(u.occurred_start) ?? isoTime(u.date);
      if (!recordedAt) {
        untimed++;
        continue;
      }
      facts.push({
        id: u.id,
        text: u.text,
        kind,
        tags: cleanTags(u.tags),
        scope: "personal",
        occurredAt: isoTime(u.occurred_start),
        recordedAt,
        documentId: u.document_id || null,
      });
    }
  }
  const emptyFacts = facts.filter((f) => f.text.trim() === "").length;
  const keptFacts = facts.filter((f) => f.text.trim() !== "");
  skip("facts", invalidated, "invalidated in Hindsight (curated out of recall)");
  skip("facts", untimed, "no time: mentioned_at, occurred_start and date are all empty");
  skip("facts", emptyFacts, "empty text");
  const factIds = new Set(keptFacts.map((f) => f.id));

  const observations: NonNullable<BundleInput["observations"]> = [];
  let droppedSources = 0;
  let untimedObs = 0;
  for (const o of observationUnits) {
    const updatedAt = isoTime(o.mentioned_at) ?? isoTime(o.date) ?? isoTime(o.occurred_start);
    if (!updatedAt || o.text.trim() === "") {
      untimedObs++;
      continue;
    }
    const sources = sourcesOf.get(o.id) ?? [];
    const kept = [...new Set(sources)].filter((id) => factIds.has(id));
    droppedSources += new Set(sources).size - kept.length;
    observations.push({
      id: o.id,
      text: o.text,
      tags: cleanTags(o.tags),
      scope: "personal",
      sourceFactIds: kept,
      updatedAt,
    });
  }
  skip("observations", untimedObs, "no time or empty text");
  skip(
    "observation sources",
    vanished,
    "the observation was gone when its sources were read (404): imported without sources",
  );
  skip("observation sources", droppedSources, "cite a fact that was not imported (invalidated, untimed or gone)");

  // A model deleted here stays deleted: its id is never reused (db/bundle-io.ts), so a re-import
  // leaves it out, counted, rather than refusing the whole bank.
  const deletedHere = options.replace ? await tombstonedModelIds(db, localId) : new Set<string>();
  const liveModels = models.filter((m) => !deletedHere.has(m.id));
  skip("mental models", models.length - liveModels.length, "deleted here since an earlier import: kept deleted");
  const mentalModels: NonNullable<BundleInput["mentalModels"]> = liveModels.map((m) => ({
    id: m.id,
    name: m.name.trim() || m.id,
    sourceQuery: m.source_query ?? "",
    content: m.content ?? "",
    tags: cleanTags(m.tags),
    refreshedAt: isoTime(m.last_refreshed_at),
    updatedAt: isoTime(m.last_refreshed_at) ?? isoTime(m.created_at),
  }));
  skip(
    "mental model content",
    liveModels.filter((m) => !m.content).length,
    "never generated in Hindsight: imported with empty content",
  );

  // The bank's mission and its active directives become one skill: the mission, then the
  // directives (highest priority first) as its disposition lines.
  const mission = profile.mission.trim();
  const active = directives.filter((d) => d.is_active && d.content.trim()).sort((a, b) => b.priority - a.priority);
  const skills: NonNullable<BundleInput["skills"]> = [];
  if (mission) {
    skills.push({
      id: "hindsight",
      name: "hindsight",
      mission,
      disposition: active.map((d) => d.content.trim()),
      retrieval: { tags: [], types: ["observation", "episodic"], scope: "personal" },
    });
  } else skip("directives", active.length, "the bank has no mission to make a skill of");
  skip("tags", droppedTags, "longer than 100 characters");
  const d = profile.disposition;
  skip(
    "disposition",
    1,
    `skepticism ${d.skepticism}, literalism ${d.literalism}, empathy ${d.empathy} (1–5): this engine has no numeric traits`,
  );

  const bundle: BundleInput = {
    version: 1,
    bank: { id: localId, name: profile.name.trim() || remoteId },
    facts: keptFacts,
    observations,
    mentalModels,
    skills,
  };
  if (options.signal?.aborted)
    throw new AppError(
      "upstream_failed",
      "The import was abandoned by its caller before it was written; nothing was imported.",
    );
  const result = await importBundle(db, bundle, { replace: options.replace });
  return {
    bankId: result.bankId,
    source: { baseUrl: shown(base), bankId: remoteId },
    counts: result.counts,
    requests: client.requests,
    skipped,
  };
}

/** HINDSIGHT_IMPORT_ORIGINS read: the origins it lists, and the entries that name none (shown when a URL is refused). */
export function readImportOrigins(env: Record<string, string | undefined> = process.env): {
  origins: string[];
  unusable: string[];
} {
  const origins: string[] = [];
  const unusable: string[] = [];
  for (const entry of (env.HINDSIGHT_IMPORT_ORIGINS ?? "").split(",").map((s) => s.trim())) {
    if (!entry) continue;
    let url: URL | null = null;
    try {
      url = new URL(entry);
    } catch {}
    // An entry without a scheme ("host:8888" parses as scheme "host:") or with a wildcard names no origin.
    if (!url || (url.protocol !== "http:" && url.protocol !== "https:") || url.hostname.includes("*"))
      unusable.push(entry.slice(0, 100));
    else origins.push(url.origin);
  }
  return { origins, unusable };
}

/** Origins the API may import from: HINDSIGHT_IMPORT_ORIGINS, comma-separated (entries naming no http(s) origin ignored). */
export function allowedImportOrigins(env: Record<string, string | undefined> = process.env): string[] {
  return readImportOrigins(env).origins;
}

/**
 * The API's import (SECURITY.md "Imports from a Hindsight server"): the request has already passed
 * the request policy (same origin, JSON, INSPECTOR_TOKEN); the server then fetches only from an
 * origin the operator listed in HINDSIGHT_IMPORT_ORIGINS, so the route is never a way to make this
 * server request an arbitrary host. Unset, the route imports nothing (the CLI has no such list).
 */
export async function importFromHindsightApi(
  db: Db,
  body: HindsightImportBody,
  env: Record<string, string | undefined> = process.env,
  signal?: AbortSignal,
): Promise<HindsightImportResult> {
  const origin = parseHindsightBaseUrl(body.baseUrl).origin;
  const { origins: allowed, unusable } = readImportOrigins(env);
  if (!allowed.includes(origin)) {
    const ignored = unusable.length
      ? ` (entries ignored, each must be scheme://host[:port]: ${unusable.map((e) => JSON.stringify(e)).join(", ")})`
      : "";
    const why = allowed.length
      ? `${origin} is not in HINDSIGHT_IMPORT_ORIGINS${ignored}`
      : unusable.length
        ? `HINDSIGHT_IMPORT_ORIGINS lists no usable origin${ignored}`
        : "HINDSIGHT_IMPORT_ORIGINS is not set, so this server imports from no Hindsight server (use the CLI, or set it)";
    throw new AppError("invalid_input", `refused Hindsight URL: ${why}; nothing was imported.`, {
      fieldErrors: { baseUrl: [why] },
    });
  }
  // Bounded per process like trace ingest: each import holds a whole bank in memory while it reads
  // (lib/server/runtime/admission.ts); a caller that goes away leaves the line.
  const slot = await admit("ingest", signal);
  try {
    return await importFromHindsight(db, {
      baseUrl: body.baseUrl,
      bankId: body.bankId,
      localBankId: body.localBankId,
      apiKey: body.apiKey,
      replace: body.replace,
      // A page closed mid-import stops reading (and frees the slot bundle imports also wait for).
      signal,
    });
  } finally {
    slot.release();
  }
}
