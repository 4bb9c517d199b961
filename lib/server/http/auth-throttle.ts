/**
 * Wrong tokens cost time: after FREE_FAILURES wrong tokens a client waits before its next try,
 * doubling with each further failure up to MAX_LOCK_MS (429 with Retry-After meanwhile). A right
 * token clears the client's record. A client is its socket address, which it cannot choose (the
 * node server stamps it on the request, lib/server/http/http-methods.ts); `X-Forwarded-For` counts only
 * when the request comes from a proxy named in INSPECTOR_TRUSTED_PROXY (off by default), and then
 * only the address that proxy itself appended. So one client's wrong guesses lock only that client:
 * a request with the right token is never throttled by someone else's failures.
 */
import { processWide } from "../runtime/process-wide";

export const FREE_FAILURES = 5;
const BASE_LOCK_MS = 1_000;
export const MAX_LOCK_MS = 60_000;
/** A client that stopped guessing this long ago starts afresh. */
const FORGET_MS = 15 * 60_000;
const MAX_CLIENTS = 10_000;

/**
 * The request header the node server sets to the connection's remote address, overwriting any
 * value a client sent (lib/server/http/http-methods.ts). Only this server writes it.
 */
export const PEER_HEADER = "x-inspector-peer";

interface ClientRecord {
  failures: number;
  lockedUntil: number;
  lastAt: number;
}

const clients = processWide("auth-throttle", () => new Map<string, ClientRecord>());

/** `::ffff:1.2.3.4` (an IPv4 client on a dual-stack socket) is `1.2.3.4`; brackets and spaces go. */
export function normalizeAddress(address: string): string {
  const bare = address
    .trim()
    .replace(/^\[|\]$/g, "")
    .toLowerCase();
  return bare.startsWith("::ffff:") && bare.includes(".") ? bare.slice("::ffff:".length) : bare;
}

/** The addresses of INSPECTOR_TRUSTED_PROXY (comma-separated); empty when unset. */
export function trustedProxies(env: Record<string, string | undefined> = process.env): Set<string> {
  return new Set(
    (env.INSPECTOR_TRUSTED_PROXY ?? "")
      .split(",")
      .map((a) => normalizeAddress(a))
      .filter(Boolean),
  );
}

/**
 * The client a request's failures are counted against: its socket address, or, when that is a
 * trusted proxy, the nearest `X-Forwarded-For` address that is not itself a trusted proxy (the
 * right-most ones are what the trusted proxies appended; a client can only prepend).
 */
export function clientKey(headers: Headers, env: Record<string, string | undefined> = process.env): string {
  const peer = normalizeAddress(headers.get(PEER_HEADER) ?? "");
  if (!peer) return "unknown";
  const proxies = trustedProxies(env);
  if (!proxies.has(peer)) return peer;
  const forwarded = (headers.get("x-forwarded-for") ?? "")
    .split(",")
    .map((a) => normalizeAddress(a))
    .filter(Boolean);
  for (let i = forwarded.length - 1; i >= 0; i--) {
    if (!proxies.has(forwarded[i]!)) return forwarded[i]!;
  }
  return peer;
}

/** Milliseconds this client must still wait before its token is even checked (0: go ahead). */
export function lockedFor(key: string, now = Date.now()): number {
  const record = clients.get(key);
  if (!record) return 0;
  if (now - record.lastAt > FORGET_MS) {
    clients.delete(key);
    return 0;
  }
  return Math.max(0, record.lockedUntil - now);
}

export function recordFailure(key: string, now = Date.now()): void {
  const record = clients.get(key) ?? { failures: 0, lockedUntil: 0, lastAt: now };
  if (now - record.lastAt > FORGET_MS) record.failures = 0;
  record.failures++;
  record.lastAt = now;
  if (record.failures > FREE_FAILURES) {
    record.lockedUntil = now + Math.min(MAX_LOCK_MS, BASE_LOCK_MS * 2 ** (record.failures - FREE_FAILURES - 1));
  }
  clients.delete(key);
  clients.set(key, record);
  // Bounded memory: forget the longest-quiet clients first (a Map iterates in insertion order).
  while (clients.size > MAX_CLIENTS) {
    const oldest = clients.keys().next().value;
    if (oldest === undefined) break;
    clients.delete(oldest);
  }
}

export function recordSuccess(key: string): void {
  clients.delete(key);
}

/** Tests only: forget every client. */
export function resetThrottle(): void {
  clients.clear();
}
