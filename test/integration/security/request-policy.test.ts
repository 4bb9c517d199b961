/**
 * Each refusal of SECURITY.md "Local mode is not an open door", through the proxy function Next runs
 * on every request (the real one, with real NextRequests), plus the MCP route's own SDK check and
 * the login redirect. No token is set: this is the default loopback mode the red team attacked.
 */
import { NextRequest } from "next/server";
import { afterEach, describe, expect, it } from "vitest";
import { POST as mcpPost } from "@/app/api/mcp/route";
import { SESSION_COOKIE, safeNextPath, sessionValue } from "@/lib/server/http/auth";
import { PEER_HEADER, resetThrottle } from "@/lib/server/http/auth-throttle";
import { proxy } from "@/proxy";

const BASE = "http://127.0.0.1:3000";

function request(path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
  return new NextRequest(new URL(path, BASE), {
    method: init.method ?? "GET",
    headers: { host: "127.0.0.1:3000", ...init.headers },
    body: init.body,
  });
}
const passed = (res: Response) => res.headers.get("x-middleware-next") === "1";

afterEach(() => {
  delete process.env.INSPECTOR_TOKEN;
  delete process.env.INSPECTOR_PUBLIC_URL;
  resetThrottle();
});

describe("DNS rebinding: a foreign Host reaches nothing", () => {
  for (const [method, path] of [
    ["GET", "/api/v1/banks/demo/export"],
    ["POST", "/api/mcp"],
    ["POST", "/runs/new"],
    ["GET", "/memory"],
  ] as const) {
    it(`${method} ${path} with Host: evil.example:3000 → 403 forbidden_host`, async () => {
      const res = await proxy(
        request(path, {
          method,
          headers: { host: "evil.example:3000", "content-type": "application/json" },
          body: method === "POST" ? "{}" : undefined,
        }),
      );
      expect(res.status).toBe(403);
      expect((await res.json()).error.code).toBe("forbidden_host");
    });
  }

  it("serves the public URL's host when one is configured", async () => {
    process.env.INSPECTOR_PUBLIC_URL = "https://inspector.example.com";
    expect(passed(await proxy(request("/memory", { headers: { host: "inspector.example.com" } })))).toBe(true);
  });
});

describe("cross-origin writes", () => {
  it("refuses the red team's bank swap: POST import?replace=true with Origin: http://evil.example", async () => {
    const res = await proxy(
      request("/api/v1/banks/import?replace=true", {
        method: "POST",
        headers: { origin: "http://evil.example", "content-type": "application/json" },
        body: "{}",
      }),
    );
    expect(res.status).toBe(403);
    expect((await res.json()).error.code).toBe("forbidden_origin");
  });

  it("refuses a no-cors text/plain fact from another loopback port with 403 (origin) and 415 (type) alone", async () => {
    const noCors = await proxy(
      request("/api/v1/banks/demo/facts", {
        method: "POST",
        headers: { origin: "http://127.0.0.1:4000", "sec-fetch-site": "same-site", "content-type": "text/plain" },
        body: '{"facts":[{"text":"planted"}]}',
      }),
    );
    expect(noCors.status).toBe(403);
    const textPlain = await proxy(
      request("/api/v1/banks/demo/facts", { method: "POST", headers: { "content-type": "text/plain" }, body: "{}" }),
    );
    expect(textPlain.status).toBe(415);
    expect((await textPlain.json()).error.code).toBe("unsupported_media_type");
  });

  it("refuses a cross-site server action and MCP call", async () => {
    const action = await proxy(
      request("/runs/new", {
        method: "POST",
        headers: { origin: "http://evil.example", "next-action": "abc", "content-type": "text/plain;charset=UTF-8" },
        body: "[]",
      }),
    );
    expect(action.status).toBe(403);
    const mcp = await proxy(
      request("/api/mcp", {
        method: "POST",
        headers: { "sec-fetch-site": "cross-site", "content-type": "application/json" },
        body: "{}",
      }),
    );
    expect(mcp.status).toBe(403);
  });

  it("lets curl-like clients (no Origin) and this site's own pages write", async () => {
    const json = { "content-type": "application/json" };
    expect(
      passed(await proxy(request("/api/v1/banks/demo/facts", { method: "POST", headers: json, body: "{}" }))),
    ).toBe(true);
    const own = { ...json, origin: BASE, "sec-fetch-site": "same-origin" };
    expect(passed(await proxy(request("/api/v1/banks/demo/facts", { method: "POST", headers: own, body: "{}" })))).toBe(
      true,
    );
  });
});

describe("malformed paths and server-action bodies get a clean 400 JSON", () => {
  it("refuses a path that does not decode (%ff%fe gave a plain-text 500 from Next)", async () => {
    for (const path of ["/api/v1/runs/%ff%fe", "/runs/%ff%fe", "/api/v1/banks/demo/skills/a%2"]) {
      const res = await proxy(request(path));
      expect(res.status, path).toBe(400);
      expect((await res.json()).error.code).toBe("invalid_input");
    }
  });

  it.each([
    ["not JSON", "text/plain;charset=UTF-8", "{{{"],
    ["a raw NUL inside a string", "text/plain;charset=UTF-8", `[{"question":"a\u0000b"}]`],
    ["not a list", "text/plain;charset=UTF-8", '"$@1"'],
    ["a stream reference", "text/plain;charset=UTF-8", '["$@1"]'],
    ["broken multipart", "multipart/form-data; boundary=zz", "--zz\r\ngarbage"],
    [
      "multipart whose argument field is not JSON (a SyntaxError answered 200)",
      "multipart/form-data; boundary=zz",
      '--zz\r\nContent-Disposition: form-data; name="0"\r\n\r\n[{"bankId":\r\n--zz--\r\n',
    ],
    ["typed as JSON with a reference in it", "application/json", '["$Q1"]'],
    ["typed as a form with text that is not JSON", "application/x-www-form-urlencoded", "a=1"],
  ])("refuses a server action body that is %s", async (_label, contentType, body) => {
    const res = await proxy(
      request("/runs/new", {
        method: "POST",
        headers: { "next-action": "40".repeat(21), "content-type": contentType },
        body,
      }),
    );
    expect(res.status).toBe(400);
    expect((await res.json()).error.code).toBe("invalid_input");
  });

  it("lets a well-formed multipart action body through (JSON parts, a form's plain entries)", async () => {
    const body =
      '--zz\r\nContent-Disposition: form-data; name="0"\r\n\r\n["$K1"]\r\n' +
      '--zz\r\nContent-Disposition: form-data; name="1_token"\r\n\r\nnot json at all\r\n' +
      '--zz\r\nContent-Disposition: form-data; name="$ACTION_ID_abc"\r\n\r\n\r\n--zz--\r\n';
    const res = await proxy(
      request("/login", {
        method: "POST",
        headers: { "next-action": "40".repeat(21), "content-type": "multipart/form-data; boundary=zz" },
        body,
      }),
    );
    expect(passed(res)).toBe(true);
  });

  it("refuses a server action body that is not valid UTF-8 (nothing is stored as U+FFFD)", async () => {
    const bytes = new Uint8Array([
      ...new TextEncoder().encode('[{"name":"bad '),
      0xff,
      0xfe,
      ...new TextEncoder().encode('"}]'),
    ]);
    const res = await proxy(
      new NextRequest(new URL("/mental-models/new", BASE), {
        method: "POST",
        headers: { host: "127.0.0.1:3000", "next-action": "40".repeat(21), "content-type": "text/plain;charset=UTF-8" },
        body: bytes,
      }),
    );
    expect(res.status).toBe(400);
    expect((await res.json()).error.code).toBe("invalid_text");
  });

  it("lets a plain action body through (values, $undefined, escaped $ strings)", async () => {
    const body = JSON.stringify([{ bankId: "demo", question: "$$5 plan?", skill: "$undefined", at: "$D2026-01-01" }]);
    const res = await proxy(
      request("/runs/new", {
        method: "POST",
        headers: { "next-action": "40".repeat(21), "content-type": "text/plain;charset=UTF-8" },
        body,
      }),
    );
    expect(passed(res)).toBe(true);
  });
});

describe("the MCP SDK's own rebinding check (behind the proxy)", () => {
  it("answers a foreign Host with 403 before any tool runs", async () => {
    const res = await mcpPost(
      new Request(`${BASE}/api/mcp`, {
        method: "POST",
        headers: {
          host: "evil.example:3000",
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      }),
    );
    expect(res.status).toBe(403);
  });

  it("refuses a body that is not valid UTF-8 instead of storing U+FFFD, and still answers a valid call", async () => {
    const headers = {
      host: "127.0.0.1:3000",
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    };
    const call = new TextEncoder().encode(
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"memory_retain","arguments":{"bank":"demo","facts":[{"text":"bad ',
    );
    const tail = new TextEncoder().encode(' end"}]}}}');
    const bad = await mcpPost(
      new Request(`${BASE}/api/mcp`, { method: "POST", headers, body: new Uint8Array([...call, 0xff, 0xfe, ...tail]) }),
    );
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.message).toMatch(/not valid UTF-8/);
    const list = await mcpPost(
      new Request(`${BASE}/api/mcp`, {
        method: "POST",
        headers,
        body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
      }),
    );
    expect(list.status).toBe(200);
    expect(JSON.stringify(await list.json())).toContain("memory_retain");
  });
});

describe("security headers", () => {
  it("every response carries a CSP with a fresh nonce, nosniff, frame-ancestors 'none' and no remote images", async () => {
    const a = await proxy(request("/memory"));
    const b = await proxy(request("/memory"));
    const csp = a.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("img-src 'self' data:");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("object-src 'none'");
    expect(csp).toContain("base-uri 'self'");
    expect(csp).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]+' 'strict-dynamic'/);
    expect(csp).not.toBe(b.headers.get("content-security-policy"));
    expect(a.headers.get("x-content-type-options")).toBe("nosniff");
    expect(a.headers.get("referrer-policy")).toBe("same-origin");
    // Next learns the nonce from the forwarded request header.
    expect(a.headers.get("x-middleware-request-content-security-policy")).toBe(csp);
    const refused = await proxy(request("/memory", { headers: { host: "evil.example" } }));
    expect(refused.headers.get("x-content-type-options")).toBe("nosniff");
  });
});

describe("wrong bearer tokens are throttled", () => {
  it("answers 429 with Retry-After after five wrong tokens, even for the right one, per client", async () => {
    process.env.INSPECTOR_TOKEN = "t".repeat(40);
    const guess = (token: string, ip = "10.0.0.1") =>
      proxy(request("/api/v1/runs", { headers: { authorization: `Bearer ${token}`, [PEER_HEADER]: ip } }));
    for (let i = 0; i < 5; i++) expect((await guess(`wrong-${i}`)).status).toBe(401);
    const locked = await guess("wrong-6");
    expect(locked.status).toBe(401);
    const next = await guess("t".repeat(40));
    expect(next.status).toBe(429);
    expect(Number(next.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await next.json()).error.code).toBe("too_many_requests");
    expect(passed(await guess("t".repeat(40), "10.0.0.2"))).toBe(true);
    // A stale login cookie is not a guess: it goes to the login page.
    const stale = await proxy(
      request("/runs", {
        headers: { cookie: `${SESSION_COOKIE}=${sessionValue("old")}`, [PEER_HEADER]: "10.0.0.3" },
      }),
    );
    expect(stale.status).toBe(307);
  });
});

describe("a forged X-Forwarded-For locks nobody out (issue #28 item 3)", () => {
  const TOKEN = "t".repeat(40);
  const from = (peer: string, token: string, forwarded?: string) =>
    proxy(
      request("/api/v1/runs", {
        headers: {
          authorization: `Bearer ${token}`,
          [PEER_HEADER]: peer,
          ...(forwarded ? { "x-forwarded-for": forwarded } : {}),
        },
      }),
    );

  it("wrong tokens sent as the victim's address never get the victim's right token a 429 (was 81 of 83)", async () => {
    process.env.INSPECTOR_TOKEN = TOKEN;
    const victim = "10.0.0.7";
    let victimRefused = 0;
    for (let i = 0; i < 83; i++) {
      // The attacker is on another socket and claims to be the victim.
      await from("10.0.0.66", `wrong-${i}`, victim);
      if (!passed(await from(victim, TOKEN))) victimRefused++;
    }
    expect(victimRefused).toBe(0);
    // The attacker locked itself, whatever address it claimed.
    expect((await from("10.0.0.66", TOKEN, victim)).status).toBe(429);
  });

  it("strangers' failures from many addresses never throttle a new client with the right token", async () => {
    process.env.INSPECTOR_TOKEN = TOKEN;
    for (let i = 0; i < 120; i++) await from(`10.2.${i}.1`, `wrong-${i}`);
    expect(passed(await from("10.9.9.9", TOKEN))).toBe(true);
  });

  it("with INSPECTOR_TRUSTED_PROXY, the proxy's appended address is the client; without it, X-Forwarded-For is ignored", async () => {
    process.env.INSPECTOR_TOKEN = TOKEN;
    process.env.INSPECTOR_TRUSTED_PROXY = "127.0.0.1";
    try {
      for (let i = 0; i < 7; i++) await from("127.0.0.1", `wrong-${i}`, "203.0.113.9");
      expect((await from("127.0.0.1", TOKEN, "203.0.113.9")).status).toBe(429);
      // Another client behind the same proxy, and one forging the locked one's address first.
      expect(passed(await from("127.0.0.1", TOKEN, "203.0.113.10"))).toBe(true);
      expect(passed(await from("127.0.0.1", TOKEN, "203.0.113.9, 203.0.113.11"))).toBe(true);
    } finally {
      delete process.env.INSPECTOR_TRUSTED_PROXY;
    }
    resetThrottle();
    // Off (the default): the proxy's socket is one client, its X-Forwarded-For means nothing.
    for (let i = 0; i < 7; i++) await from("127.0.0.1", `wrong-${i}`, "203.0.113.9");
    expect((await from("127.0.0.1", TOKEN, "203.0.113.10")).status).toBe(429);
  });
});

describe("login redirect target", () => {
  it.each([
    ["/\t/127.0.0.1:3299/phish", "/"],
    ["/\n/127.0.0.1:3299/phish", "/"],
    ["/%09/127.0.0.1:3299/phish", "/%09/127.0.0.1:3299/phish"],
    ["/\\evil.example", "/"],
    ["//evil.example/x", "/"],
    ["/runs?bank=demo#top", "/runs?bank=demo#top"],
    ["/runs/../memory", "/memory"],
    // Dot segments that normalize to a protocol-relative path.
    ["/.//evil.example", "/"],
    ["/a/..//evil.example", "/"],
    ["/./\\evil.example", "/"],
    ["/x/../\\/evil.example", "/"],
  ])("%j → %j", (next, expected) => {
    expect(safeNextPath(next)).toBe(expected);
    // Idempotent: the login page applies it once, the action again.
    expect(safeNextPath(expected)).toBe(expected);
  });
});
