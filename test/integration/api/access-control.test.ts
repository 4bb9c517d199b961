/**
 * Access control without a server: the proxy refuses requests without the token when one is set,
 * accepts the bearer header or the login cookie, and the start script refuses a non-loopback bind
 * without a token before doing any build work.
 */
import { spawnSync } from "node:child_process";
import { NextRequest } from "next/server";
import { afterEach, describe, expect, it } from "vitest";
import { isAuthorized, SESSION_COOKIE, safeNextPath, sessionValue } from "@/lib/server/http/auth";
import { proxy } from "@/proxy";

const TOKEN = "s3cret-token-for-tests";

function request(path: string, headers: Record<string, string> = {}) {
  return new NextRequest(new URL(path, "http://127.0.0.1:3000"), { headers });
}

afterEach(() => {
  delete process.env.INSPECTOR_TOKEN;
});

describe("proxy with INSPECTOR_TOKEN set", () => {
  it("refuses API requests without the token with 401 JSON, including MCP", async () => {
    process.env.INSPECTOR_TOKEN = TOKEN;
    for (const path of [
      "/api/v1/runs",
      "/api/v1/banks/demo/reflect",
      "/api/mcp",
      "/api/runs/x/otlp",
      "/api/v1/runs/stream",
    ]) {
      const res = await proxy(request(path));
      expect(res.status, path).toBe(401);
      expect((await res.json()).error.code).toBe("unauthorized");
      expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
    }
  });

  it("refuses a wrong bearer token and a forged cookie", async () => {
    process.env.INSPECTOR_TOKEN = TOKEN;
    expect((await proxy(request("/api/v1/runs", { authorization: "Bearer nope" }))).status).toBe(401);
    expect((await proxy(request("/api/v1/runs", { cookie: `${SESSION_COOKIE}=${TOKEN}` }))).status).toBe(401);
  });

  it("lets the bearer token and the login cookie through", async () => {
    process.env.INSPECTOR_TOKEN = TOKEN;
    const bearer = await proxy(request("/api/v1/runs", { authorization: `Bearer ${TOKEN}` }));
    expect(bearer.headers.get("x-middleware-next")).toBe("1");
    const cookie = await proxy(request("/runs", { cookie: `${SESSION_COOKIE}=${sessionValue(TOKEN)}` }));
    expect(cookie.headers.get("x-middleware-next")).toBe("1");
  });

  it("redirects pages to the login form, remembering where the user was going", async () => {
    process.env.INSPECTOR_TOKEN = TOKEN;
    const res = await proxy(request("/runs?bank=demo"));
    expect(res.status).toBe(307);
    const location = new URL(res.headers.get("location") ?? "");
    expect(location.pathname).toBe("/login");
    expect(location.searchParams.get("next")).toBe("/runs?bank=demo");
  });

  it("keeps the health check and the login page public", async () => {
    process.env.INSPECTOR_TOKEN = TOKEN;
    expect((await proxy(request("/api/health"))).headers.get("x-middleware-next")).toBe("1");
    expect((await proxy(request("/login"))).headers.get("x-middleware-next")).toBe("1");
  });
});

describe("proxy without a token", () => {
  it("lets everything through (the server only listens on loopback then)", async () => {
    expect((await proxy(request("/api/v1/runs"))).headers.get("x-middleware-next")).toBe("1");
  });
});

describe("session cookie and redirects", () => {
  it("never uses the token itself as the cookie value", async () => {
    expect(sessionValue(TOKEN)).not.toContain(TOKEN);
    expect(sessionValue(TOKEN)).not.toBe(sessionValue("other"));
    expect(isAuthorized({ session: sessionValue(TOKEN) }, TOKEN)).toBe(true);
    expect(isAuthorized({ session: sessionValue(TOKEN) }, "rotated")).toBe(false);
  });

  it("only redirects to paths on this site after login", async () => {
    expect(safeNextPath("/runs?x=1")).toBe("/runs?x=1");
    expect(safeNextPath("//evil.example")).toBe("/");
    expect(safeNextPath("https://evil.example")).toBe("/");
    expect(safeNextPath(null)).toBe("/");
  });
});

describe("npm start bind check", () => {
  const start = (env: Record<string, string>) =>
    spawnSync(process.execPath, ["scripts/start.mjs"], {
      env: { ...process.env, INSPECTOR_TOKEN: "", ...env },
      encoding: "utf8",
      timeout: 10_000,
    });

  for (const host of ["0.0.0.0", "192.168.1.20", "::"]) {
    it(`refuses to start on ${host} without INSPECTOR_TOKEN, before building`, async () => {
      const res = start({ HOST: host });
      expect(res.status).toBe(1);
      expect(res.stderr.trim().split("\n")).toEqual([
        `Refusing to listen on ${host}: set INSPECTOR_TOKEN to require a token, or bind HOST=127.0.0.1.`,
      ]);
      expect(res.stdout).not.toMatch(/Building/);
    });
  }

  it("refuses a token shorter than 32 characters and offers a generated one, before building", async () => {
    const res = start({ HOST: "0.0.0.0", INSPECTOR_TOKEN: "short-token" });
    expect(res.status).toBe(1);
    const line = res.stderr.trim();
    expect(line).toMatch(/INSPECTOR_TOKEN has 11 characters, it needs at least 32/);
    const offered = /INSPECTOR_TOKEN=(\S+)$/.exec(line)?.[1] ?? "";
    expect(offered.length).toBeGreaterThanOrEqual(32);
    expect(res.stdout).not.toMatch(/Building/);
  });
});
