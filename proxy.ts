/**
 * Next 16 proxy (formerly middleware), Node runtime: when INSPECTOR_TOKEN is set, pages, /api/**
 * (except /api/health) and /api/mcp need the token. APIs answer 401; pages redirect to /login.
 */
import { type NextRequest, NextResponse } from "next/server";
import { AppError } from "@/lib/contracts/errors";
import { inspectorToken, isAuthorized, isPublicPath, SESSION_COOKIE } from "@/lib/server/auth";
import { httpError } from "@/lib/server/errors";

export function proxy(request: NextRequest) {
  const token = inspectorToken();
  if (!token) return NextResponse.next();
  const { pathname, search } = request.nextUrl;
  if (isPublicPath(pathname)) return NextResponse.next();
  const credentials = {
    authorization: request.headers.get("authorization"),
    session: request.cookies.get(SESSION_COOKIE)?.value,
  };
  if (isAuthorized(credentials, token)) return NextResponse.next();
  if (pathname.startsWith("/api/")) {
    return httpError(new AppError("unauthorized", "This server requires INSPECTOR_TOKEN as a bearer token."), {
      headers: { "www-authenticate": 'Bearer realm="reflect-inspector"' },
    });
  }
  const login = new URL("/login", request.url);
  login.searchParams.set("next", `${pathname}${search}`);
  return NextResponse.redirect(login);
}

export const config = {
  // Static build assets carry no data; everything else goes through the check.
  matcher: ["/((?!_next/static|_next/image|favicon.ico).*)"],
};
