/**
 * Next 16 proxy (formerly middleware), Node runtime: the one door every request passes.
 * 1. The request policy (lib/server/http/request-policy.ts): loopback or public Host only, writes only
 *    from this site, JSON only for API writes, a path that decodes, a server action body that
 *    parses (lib/server/http/action-body.ts). This holds with or without a token.
 * 2. With INSPECTOR_TOKEN set, pages, /api/** (except /api/health), /api/mcp and the OTLP receiver
 *    /v1/traces need the token; APIs answer 401, pages redirect to /login; wrong tokens are throttled per client (429), a
 *    client being its socket address (X-Forwarded-For only from INSPECTOR_TRUSTED_PROXY).
 * 3. Every response carries the security headers; pages get a per-request CSP nonce.
 */
import { type NextRequest, NextResponse } from "next/server";
import { AppError } from "@/lib/contracts/errors";
import { checkActionRequest } from "@/lib/server/http/action-body";
import { inspectorToken, isAuthorized, isPublicPath, SESSION_COOKIE } from "@/lib/server/http/auth";
import { clientKey, lockedFor, recordFailure, recordSuccess } from "@/lib/server/http/auth-throttle";
import { httpError } from "@/lib/server/http/errors";
import { checkRequest } from "@/lib/server/http/request-policy";
import { contentSecurityPolicy, newNonce, STATIC_SECURITY_HEADERS } from "@/lib/server/http/security-headers";

function secured(response: NextResponse | Response, csp: string): Response {
  for (const [name, value] of Object.entries(STATIC_SECURITY_HEADERS)) response.headers.set(name, value);
  response.headers.set("content-security-policy", csp);
  return response;
}

export async function proxy(request: NextRequest): Promise<Response> {
  const nonce = newNonce();
  const csp = contentSecurityPolicy(nonce);
  const { pathname, search } = request.nextUrl;
  const refusal = checkRequest({
    method: request.method,
    pathname,
    // Browsers always send Host; a bare HTTP/1.0 client (no rebinding possible) is judged by the URL.
    host: request.headers.get("host") ?? request.nextUrl.host,
    origin: request.headers.get("origin"),
    secFetchSite: request.headers.get("sec-fetch-site"),
    contentType: request.headers.get("content-type"),
  });
  if (refusal) return secured(httpError(refusal), csp);
  // A server action's body is checked before Next decodes it (it answers a malformed one with a 500).
  if (request.method === "POST" && request.headers.has("next-action")) {
    const bad = await checkActionRequest(request);
    if (bad) return secured(httpError(bad), csp);
  }

  const pass = () => {
    // Next reads the nonce from the request's CSP header and puts it on its own scripts.
    const headers = new Headers(request.headers);
    headers.set("content-security-policy", csp);
    return secured(NextResponse.next({ request: { headers } }), csp);
  };
  const token = inspectorToken();
  if (!token || isPublicPath(pathname)) return pass();

  const credentials = {
    authorization: request.headers.get("authorization"),
    session: request.cookies.get(SESSION_COOKIE)?.value,
  };
  // A bearer token is a guess to count; a stale session cookie (a rotated token) just goes to /login.
  // The client is its socket address (or what a trusted proxy says): only its own failures lock it.
  const presented = Boolean(credentials.authorization);
  const client = clientKey(request.headers);
  const wait = presented ? lockedFor(client) : 0;
  if (wait > 0) {
    const seconds = Math.ceil(wait / 1000);
    return secured(
      httpError(new AppError("too_many_requests", `Too many wrong tokens: try again in ${seconds} s.`), {
        headers: { "retry-after": String(seconds) },
      }),
      csp,
    );
  }
  if (isAuthorized(credentials, token)) {
    if (presented) recordSuccess(client);
    return pass();
  }
  if (presented) recordFailure(client);
  // The OTLP receiver (POST /v1/traces) is an API: its clients are exporters, not people at /login.
  if (pathname.startsWith("/api/") || pathname.startsWith("/v1/")) {
    return secured(
      httpError(new AppError("unauthorized", "This server requires INSPECTOR_TOKEN as a bearer token."), {
        headers: { "www-authenticate": 'Bearer realm="reflect-inspector"' },
      }),
      csp,
    );
  }
  const login = new URL("/login", request.url);
  login.searchParams.set("next", `${pathname}${search}`);
  return secured(NextResponse.redirect(login), csp);
}

export const config = {
  // Static build assets carry no data; everything else goes through the check.
  matcher: ["/((?!_next/static|_next/image|favicon.ico|favicon.svg|apple-icon.png).*)"],
};
