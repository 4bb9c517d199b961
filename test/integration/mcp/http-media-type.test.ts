/**
 * /api/mcp speaks JSON-RPC even when it refuses: a POST that is not `application/json` passes the
 * request policy (whose origin checks still apply) and the route answers 415 with a JSON-RPC
 * error, not the app's REST error body.
 */
import { NextRequest } from "next/server";
import { describe, expect, it } from "vitest";
import { POST } from "@/app/api/mcp/route";
import { proxy } from "@/proxy";

const URL_ = "http://127.0.0.1:3000/api/mcp";
const LIST = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" });

describe("a non-JSON POST to /api/mcp", () => {
  it.each([
    ["text/plain", LIST],
    ["text/plain;charset=UTF-8", "hello"],
    ["application/x-www-form-urlencoded", "a=1"],
    [null, LIST],
  ])("with %s gets a JSON-RPC error (415), through the proxy", async (type, body) => {
    const headers: Record<string, string> = { host: "127.0.0.1:3000", accept: "application/json, text/event-stream" };
    if (type) headers["content-type"] = type;
    const passed = await proxy(new NextRequest(URL_, { method: "POST", headers, body }));
    expect(passed.headers.get("x-middleware-next")).toBe("1");
    const res = await POST(new Request(URL_, { method: "POST", headers, body }));
    expect(res.status).toBe(415);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const json = (await res.json()) as { jsonrpc: string; id: unknown; error: { code: number; message: string } };
    expect(json.jsonrpc).toBe("2.0");
    expect(json.id).toBeNull();
    expect(json.error.code).toBe(-32000);
    expect(json.error.message).toMatch(/^Unsupported Media Type/);
    // Never the app's REST error shape.
    expect(json).not.toHaveProperty("error.fieldErrors");
  });

  it("from another site is still refused by the request policy (403) before the route", async () => {
    const res = await proxy(
      new NextRequest(URL_, {
        method: "POST",
        headers: { host: "127.0.0.1:3000", "content-type": "text/plain", origin: "https://evil.example" },
        body: LIST,
      }),
    );
    expect(res.status).toBe(403);
  });
});
