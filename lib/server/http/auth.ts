/**
 * Access control. With INSPECTOR_TOKEN set, every page and API (except the health check and the
 * login page) needs the token: as `Authorization: Bearer <token>`, or the session cookie the
 * login form sets. The cookie holds an HMAC of the token, never the token, and comparisons are
 * constant-time. Without a token the server must only listen on loopback (scripts/start.mjs).
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto";

export const SESSION_COOKIE = "inspector_session";

export function inspectorToken(env: Record<string, string | undefined> = process.env): string | null {
  const token = env.INSPECTOR_TOKEN?.trim();
  return token ? token : null;
}

/** The session cookie's value: proves the holder knew the token without revealing it. */
export function sessionValue(token: string): string {
  return createHmac("sha256", token).update("reflect-inspector session v1").digest("base64url");
}

/** Constant-time string equality (hashing first makes the lengths equal). */
export function safeEqual(given: string, expected: string): boolean {
  const digest = (s: string) => createHash("sha256").update(s, "utf8").digest();
  return timingSafeEqual(digest(given), digest(expected));
}

export function isAuthorized(
  credentials: { authorization?: string | null; session?: string | null },
  token: string,
): boolean {
  const bearer = /^Bearer\s+(.+)$/i.exec(credentials.authorization ?? "")?.[1]?.trim();
  if (bearer && safeEqual(bearer, token)) return true;
  return Boolean(credentials.session && safeEqual(credentials.session, sessionValue(token)));
}

/** Reachable without the token: the readiness probe and the login page itself. */
export function isPublicPath(pathname: string): boolean {
  return pathname === "/api/health" || pathname === "/login";
}

const OWN_ORIGIN = "http://inspector.invalid";
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is refused
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;

/**
 * Where to go after login: a path on this site, or "/". The value is parsed as a browser would,
 * against this site's origin (tabs and newlines, which URL parsers drop, are refused first), and
 * only a result on the same origin is kept, as its path, query and fragment.
 */
export function safeNextPath(value: unknown): string {
  if (typeof value !== "string" || !value.startsWith("/") || CONTROL_CHARS.test(value)) return "/";
  let url: URL;
  try {
    url = new URL(value, OWN_ORIGIN);
  } catch {
    return "/";
  }
  if (url.origin !== OWN_ORIGIN) return "/";
  const path = `${url.pathname}${url.search}${url.hash}`;
  // "/.//evil.com" normalizes to "//evil.com": a protocol-relative URL a browser would follow off-site.
  return path.startsWith("//") || path.startsWith("/\\") ? "/" : path;
}
