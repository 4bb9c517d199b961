/**
 * The request policy as a pure function: which Host, Origin, Sec-Fetch-Site and Content-Type
 * combinations may pass, and what the MCP SDK's own rebinding check is configured with.
 */
import { describe, expect, it } from "vitest";
import {
  checkRequest,
  isAllowedHost,
  isSameOrigin,
  mcpRebindingOptions,
  type RequestFacts,
} from "@/lib/server/http/request-policy";

const NO_ENV = {};
const PUBLIC = { INSPECTOR_PUBLIC_URL: "https://inspector.example.com/" };

function facts(over: Partial<RequestFacts> = {}): RequestFacts {
  return {
    method: "POST",
    pathname: "/api/v1/banks/demo/facts",
    host: "127.0.0.1:3000",
    origin: null,
    secFetchSite: null,
    contentType: "application/json",
    ...over,
  };
}

const code = (over: Partial<RequestFacts>, env: Record<string, string> = NO_ENV) =>
  checkRequest(facts(over), env)?.code ?? "ok";

describe("Host allowlist", () => {
  it.each(["localhost", "localhost:3000", "127.0.0.1", "127.0.0.1:41234", "[::1]:3000", "LOCALHOST:80"])(
    "serves %s",
    (host) => expect(isAllowedHost(host, NO_ENV)).toBe(true),
  );

  it.each([
    "evil.example",
    "evil.example:3000",
    "127.0.0.1.evil.example",
    "localhost.evil.example",
    "",
    "a b",
    "x@127.0.0.1",
  ])("refuses %s (DNS rebinding)", (host) => expect(isAllowedHost(host, NO_ENV)).toBe(false));

  it("serves the host of INSPECTOR_PUBLIC_URL on any port, and only when it is set", () => {
    expect(isAllowedHost("inspector.example.com", PUBLIC)).toBe(true);
    expect(isAllowedHost("inspector.example.com:8443", PUBLIC)).toBe(true);
    expect(isAllowedHost("inspector.example.com", NO_ENV)).toBe(false);
  });

  it("refuses reads too: a rebinding page must not read an export", () => {
    expect(code({ method: "GET", host: "evil.example:3000", pathname: "/api/v1/banks/demo/export" })).toBe(
      "forbidden_host",
    );
  });
});

describe("same-origin writes", () => {
  it("lets non-browser clients through (no Origin, no Sec-Fetch-Site)", () => {
    expect(code({})).toBe("ok");
  });

  it("lets this site's own pages write", () => {
    expect(code({ origin: "http://127.0.0.1:3000", secFetchSite: "same-origin" })).toBe("ok");
    expect(code({ origin: "https://inspector.example.com", host: "127.0.0.1:3000" }, PUBLIC)).toBe("ok");
    expect(isSameOrigin("http://localhost", "localhost:80", NO_ENV)).toBe(true);
  });

  it.each([
    ["another loopback port", "http://127.0.0.1:4000", "same-site"],
    ["another site", "http://evil.example", "cross-site"],
    ["a sandboxed frame", "null", "cross-site"],
    ["another scheme", "file:///tmp/x.html", null],
  ])("refuses a write from %s", (_label, origin, site) => {
    expect(code({ origin, secFetchSite: site })).toBe("forbidden_origin");
    expect(code({ origin, secFetchSite: null })).toBe("forbidden_origin");
  });

  it("refuses on Sec-Fetch-Site alone (a browser that sends no Origin)", () => {
    expect(code({ secFetchSite: "cross-site" })).toBe("forbidden_origin");
    expect(code({ secFetchSite: "same-site" })).toBe("forbidden_origin");
    expect(code({ secFetchSite: "none" })).toBe("ok");
  });

  it("applies to server actions and MCP, not only /api/v1", () => {
    expect(code({ pathname: "/runs/new", contentType: "text/plain;charset=UTF-8", origin: "http://127.0.0.1:9" })).toBe(
      "forbidden_origin",
    );
    expect(code({ pathname: "/api/mcp", origin: "http://evil.example" })).toBe("forbidden_origin");
  });

  it("lets any origin read (CORS keeps the answer from a foreign page)", () => {
    expect(code({ method: "GET", origin: "http://evil.example", secFetchSite: "cross-site" })).toBe("ok");
  });
});

describe("JSON writes to the API", () => {
  it.each(["text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded", "multipart/form-data", null])(
    "refuses %s with 415",
    (contentType) => expect(code({ contentType })).toBe("unsupported_media_type"),
  );

  it("leaves a method the /api/v1 path lacks to the route's 405, whatever its type", () => {
    for (const method of ["PATCH", "PUT"]) {
      expect(code({ method, pathname: "/api/v1/banks/demo/reflect", contentType: null })).toBe("ok");
      expect(code({ method, pathname: "/api/v1/banks/demo/reflect", contentType: "text/plain" })).toBe("ok");
    }
    expect(code({ method: "POST", pathname: "/api/v1/runs/run_1", contentType: null })).toBe("ok");
    // Where the path takes the method, the type is checked as before.
    expect(code({ method: "POST", pathname: "/api/v1/banks/demo/reflect", contentType: null })).toBe(
      "unsupported_media_type",
    );
    expect(code({ method: "PUT", pathname: "/api/v1/banks/demo/skills/s1", contentType: "text/plain" })).toBe(
      "unsupported_media_type",
    );
    // The other API routes keep the check.
    expect(code({ method: "POST", pathname: "/api/banks/demo/memory", contentType: null })).toBe(
      "unsupported_media_type",
    );
  });

  it.each([
    ["POST", "/api/v1/nope", null],
    ["PATCH", "/api/v1/nope", "text/plain"],
    ["PUT", "/api/v1/banks/demo/nothing-here", "application/x-www-form-urlencoded"],
    ["DELETE", "/api/v1/banks/demo/reflect/extra", null],
  ])(
    "leaves %s %s (no route declares it) to the catch-all's 404, whatever its type (%s)",
    (method, pathname, contentType) => {
      expect(code({ method, pathname, contentType })).toBe("ok");
    },
  );

  it("still checks origin on an unknown /api/v1 write (the 404 never comes before the origin check)", () => {
    expect(code({ method: "POST", pathname: "/api/v1/nope", contentType: null, origin: "http://evil.example" })).toBe(
      "forbidden_origin",
    );
  });

  it("leaves /api/mcp's content type to the MCP route (a JSON-RPC error), never its origin check", () => {
    expect(code({ pathname: "/api/mcp", contentType: "text/plain" })).toBe("ok");
    expect(
      code({
        pathname: "/api/mcp",
        contentType: "text/plain",
        origin: "http://evil.example",
        secFetchSite: "cross-site",
      }),
    ).toBe("forbidden_origin");
  });

  it("takes a .jsonl bundle (application/x-ndjson) at the bundle import only, with the same origin rules", () => {
    const lines = { pathname: "/api/v1/banks/import", contentType: "application/x-ndjson" };
    expect(code(lines)).toBe("ok");
    expect(code({ ...lines, pathname: "/api/v1/banks/import/" })).toBe("ok");
    expect(
      code({ ...lines, contentType: "Application/X-NDJSON; charset=utf-8", origin: "http://127.0.0.1:3000" }),
    ).toBe("ok");
    // Another page may not send it, with or without a forged type.
    expect(code({ ...lines, origin: "http://evil.example" })).toBe("forbidden_origin");
    expect(code({ ...lines, secFetchSite: "cross-site" })).toBe("forbidden_origin");
    expect(code({ ...lines, secFetchSite: "same-site" })).toBe("forbidden_origin");
    // The types a cross-site form may send stay refused there, and the type nowhere else.
    for (const contentType of ["text/plain", "multipart/form-data", "application/x-www-form-urlencoded", null])
      expect(code({ ...lines, contentType })).toBe("unsupported_media_type");
    expect(code({ ...lines, pathname: "/api/v1/banks/import/hindsight" })).toBe("unsupported_media_type");
    expect(code({ ...lines, pathname: "/api/v1/banks/demo/facts" })).toBe("unsupported_media_type");
  });

  it("accepts application/json with parameters, in any case", () => {
    expect(code({ contentType: "Application/JSON; charset=utf-8" })).toBe("ok");
  });

  it("leaves pages' server actions and bodiless deletes alone", () => {
    expect(code({ pathname: "/runs/new", contentType: "text/plain;charset=UTF-8" })).toBe("ok");
    expect(code({ method: "DELETE", contentType: null, pathname: "/api/v1/banks/demo/skills/x" })).toBe("ok");
  });
});

describe("the MCP SDK's rebinding check", () => {
  it("allows exactly this port's loopback names and origins, plus the public URL", () => {
    const options = mcpRebindingOptions("127.0.0.1:4321", PUBLIC);
    expect(options.enableDnsRebindingProtection).toBe(true);
    expect(options.allowedHosts).toEqual(
      expect.arrayContaining(["127.0.0.1:4321", "localhost:4321", "[::1]:4321", "inspector.example.com"]),
    );
    expect(options.allowedHosts).not.toContain("evil.example:4321");
    expect(options.allowedOrigins).toContain("http://127.0.0.1:4321");
    expect(options.allowedOrigins).toContain("https://inspector.example.com");
  });
});
