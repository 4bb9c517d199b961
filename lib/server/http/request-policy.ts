/**
 * What a request must look like before anything runs (SECURITY.md "Local mode is not an open door"),
 * as a pure function the proxy applies to every request:
 * - the Host header names loopback (`localhost`, `127.0.0.1`, `[::1]`, any port) or the host of
 *   INSPECTOR_PUBLIC_URL, so a DNS-rebinding page (`Host: evil.example`) reaches nothing;
 * - a write (any method but GET/HEAD/OPTIONS) comes from this site: an `Origin` header, when sent,
 *   is this host's origin (or INSPECTOR_PUBLIC_URL's), and `Sec-Fetch-Site`, when sent, is
 *   `same-origin` or `none`. Browsers send both; curl, the CLI and SDKs send neither and pass;
 * - a write to /api/** is `Content-Type: application/json`, which a web page cannot send to
 *   another origin without a CORS preflight this server never grants (a method the path lacks
 *   gets the route's 405 first; /api/mcp refuses other types itself, as a JSON-RPC error). The one
 *   other type taken is `application/x-ndjson` by the bundle import (a `.jsonl` bundle): like JSON,
 *   it is not a type a cross-site form or a "simple" fetch may send without that preflight.
 */
import { AppError } from "@/lib/contracts/errors";
import { v1MethodsFor } from "./api/route-methods";

const LOOPBACK_HOSTNAMES = new Set(["localhost", "127.0.0.1", "[::1]"]);
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);
const JSON_METHODS = new Set(["POST", "PUT", "PATCH"]);
/** API writes that also take a body of another type than JSON, none of them CORS-safelisted. */
const OTHER_BODY_TYPES: Record<string, readonly string[]> = {
  "/api/v1/banks/import": ["application/x-ndjson"],
};

export interface RequestFacts {
  method: string;
  pathname: string;
  host: string | null;
  origin: string | null;
  secFetchSite: string | null;
  contentType: string | null;
}

/** The public URL's origin, or null when none (or an unparsable one) is configured. */
export function publicOrigin(env: Record<string, string | undefined> = process.env): URL | null {
  const raw = env.INSPECTOR_PUBLIC_URL?.trim();
  if (!raw) return null;
  try {
    return new URL(raw);
  } catch {
    return null;
  }
}

/** `host[:port]` as a URL would hold it (lowercased, default port dropped), or null when it is not one. */
function parseHost(host: string, protocol = "http:"): URL | null {
  if (!host || /[\s/\\@?#]/.test(host)) return null;
  try {
    const url = new URL(`${protocol}//${host}`);
    return url.hostname ? url : null;
  } catch {
    return null;
  }
}

export function isAllowedHost(host: string | null, env: Record<string, string | undefined> = process.env): boolean {
  const url = host ? parseHost(host) : null;
  if (!url) return false;
  if (LOOPBACK_HOSTNAMES.has(url.hostname)) return true;
  return url.hostname === publicOrigin(env)?.hostname;
}

/** The Origin header names this very host (any scheme the host is served on) or the public URL. */
export function isSameOrigin(
  origin: string,
  host: string | null,
  env: Record<string, string | undefined> = process.env,
): boolean {
  let from: URL;
  try {
    from = new URL(origin);
  } catch {
    return false; // "null" (sandboxed frames, file://) and garbage alike
  }
  if (from.protocol !== "http:" && from.protocol !== "https:") return false;
  if (from.origin === publicOrigin(env)?.origin) return true;
  const own = host ? parseHost(host, from.protocol) : null;
  return own !== null && own.host === from.host;
}

function mediaType(contentType: string | null): string {
  return (contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
}

/** Every `%xx` in the path decodes to UTF-8 (Next answers a plain-text 500 for `%ff%fe` otherwise). */
function decodablePath(pathname: string): boolean {
  try {
    decodeURIComponent(pathname);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether the content-type check applies: an API write, except where the route answers first —
 * an /api/v1 path no route declares (404 from the catch-all route, whatever the method or body),
 * a method an /api/v1 path does not have (405 from the route, before any body is looked at) and
 * /api/mcp, whose transport answers a non-JSON body with a JSON-RPC error (415) itself.
 */
function takesJsonBody(pathname: string, method: string): boolean {
  if (!pathname.startsWith("/api/") || !JSON_METHODS.has(method)) return false;
  if (pathname === "/api/mcp" || pathname === "/api/mcp/") return false;
  if (pathname.startsWith("/api/v1/")) {
    const methods = v1MethodsFor(pathname);
    return methods?.includes(method) === true;
  }
  return true;
}

/** The refusal for this request, or null when it may go on to the token check and the route. */
export function checkRequest(
  req: RequestFacts,
  env: Record<string, string | undefined> = process.env,
): AppError | null {
  if (!decodablePath(req.pathname)) {
    return new AppError("invalid_input", "The path is not valid percent-encoded UTF-8.", {
      fieldErrors: { path: ["not valid percent-encoded UTF-8"] },
    });
  }
  if (!isAllowedHost(req.host, env)) {
    return new AppError(
      "forbidden_host",
      `Host "${req.host ?? ""}" is not served here: use 127.0.0.1 or localhost, or set INSPECTOR_PUBLIC_URL to the address people use.`,
    );
  }
  const method = req.method.toUpperCase();
  if (SAFE_METHODS.has(method)) return null;
  const site = req.secFetchSite?.toLowerCase();
  if (site && site !== "same-origin" && site !== "none") {
    return new AppError("forbidden_origin", `A ${site} page cannot change anything here (Sec-Fetch-Site: ${site}).`);
  }
  if (req.origin !== null && !isSameOrigin(req.origin, req.host, env)) {
    return new AppError(
      "forbidden_origin",
      `Writes from origin "${req.origin}" are refused: only this site may write.`,
    );
  }
  const type = mediaType(req.contentType);
  const otherTypes = OTHER_BODY_TYPES[req.pathname.replace(/\/+$/, "")] ?? [];
  if (takesJsonBody(req.pathname, method) && type !== "application/json" && !otherTypes.includes(type)) {
    return new AppError(
      "unsupported_media_type",
      `Send the body as JSON with "Content-Type: application/json" (got "${req.contentType ?? "none"}").`,
    );
  }
  return null;
}

/**
 * The MCP SDK's own DNS-rebinding check (exact `Host` and `Origin` values): this server's loopback
 * names and public URL, on the port the request came in on.
 */
export function mcpRebindingOptions(
  host: string | null,
  env: Record<string, string | undefined> = process.env,
): { enableDnsRebindingProtection: true; allowedHosts: string[]; allowedOrigins: string[] } {
  const port = (host ? parseHost(host)?.port : "") ?? "";
  const suffix = port ? `:${port}` : "";
  const hosts = [...LOOPBACK_HOSTNAMES].map((name) => `${name}${suffix}`);
  const pub = publicOrigin(env);
  if (pub) hosts.push(pub.host);
  const origins = [...LOOPBACK_HOSTNAMES].flatMap((name) => [`http://${name}${suffix}`, `https://${name}${suffix}`]);
  if (pub) origins.push(pub.origin);
  return { enableDnsRebindingProtection: true, allowedHosts: [...new Set(hosts)], allowedOrigins: origins };
}
