/**
 * Wrong tokens cost time: after FREE_FAILURES wrong tokens a client waits before its next try,
 * doubling with each further failure up to MAX_LOCK_MS (429 with Retry-After meanwhile). A right
 * token clears the client's record. Clients are told apart by the address Next forwards; since a
 * client can send its own X-Forwarded-For, all clients together also share one budget
 * (GLOBAL_FREE_FAILURES), so rotating the header buys no more than that. A client that presented
 * the right token lately is exempt from that shared lock (only its own failures lock it), so
 * strangers' wrong guesses cannot lock out someone who is already signed in with the token.
 */
import { processWide } from "./process-wide";

export const FREE_FAILURES = 5;
export const GLOBAL_FREE_FAILURES = 50;
const GLOBAL = "\u0000all";
const BASE_LOCK_MS = 1_000;
export const MAX_LOCK_MS = 60_000;
/** A client that stopped guessing this long ago starts afresh. */
const FORGET_MS = 15 * 60_000;
const MAX_CLIENTS = 10_000;

interface ClientRecord {
  failures: number;
  lockedUntil: number;
  lastAt: number;
}

const clients = processWide("auth-throttle", () => new Map<string, ClientRecord>());
/** Clients whose last presented token was right, with when: exempt from the shared lock. */
const trusted = processWide("auth-throttle-trusted", () => new Map<string, number>());

/** The client as the proxy sees it: the first forwarded address, else one shared key. */
export function clientKey(headers: Headers): string {
  const forwarded = headers.get("x-forwarded-for")?.split(",")[0]?.trim();
  return forwarded || headers.get("x-real-ip") || "unknown";
}

/** Milliseconds this client must still wait before its token is even checked (0: go ahead). */
export function lockedFor(key: string, now = Date.now()): number {
  const since = trusted.get(key);
  const isTrusted = since !== undefined && now - since <= FORGET_MS;
  return Math.max(lockOf(key, now), isTrusted ? 0 : lockOf(GLOBAL, now));
}

function lockOf(key: string, now: number): number {
  const record = clients.get(key);
  if (!record) return 0;
  if (now - record.lastAt > FORGET_MS) {
    clients.delete(key);
    return 0;
  }
  return Math.max(0, record.lockedUntil - now);
}

export function recordFailure(key: string, now = Date.now()): void {
  trusted.delete(key);
  count(GLOBAL, GLOBAL_FREE_FAILURES, now);
  count(key, FREE_FAILURES, now);
}

function count(key: string, free: number, now: number): void {
  const record = clients.get(key) ?? { failures: 0, lockedUntil: 0, lastAt: now };
  if (now - record.lastAt > FORGET_MS) record.failures = 0;
  record.failures++;
  record.lastAt = now;
  if (record.failures > free) {
    record.lockedUntil = now + Math.min(MAX_LOCK_MS, BASE_LOCK_MS * 2 ** (record.failures - free - 1));
  }
  clients.delete(key);
  clients.set(key, record);
  // Bounded memory: forget the longest-quiet clients first (a Map iterates in insertion order).
  while (clients.size > MAX_CLIENTS) {
    const oldest = [...clients.keys()].find((k) => k !== GLOBAL);
    if (oldest === undefined) break;
    clients.delete(oldest);
  }
}

export function recordSuccess(key: string, now = Date.now()): void {
  clients.delete(key);
  trusted.delete(key);
  trusted.set(key, now);
  while (trusted.size > MAX_CLIENTS) {
    const oldest = trusted.keys().next().value;
    if (oldest === undefined) break;
    trusted.delete(oldest);
  }
}

/** Tests only: forget every client. */
export function resetThrottle(): void {
  clients.clear();
  trusted.clear();
}
