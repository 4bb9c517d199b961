/**
 * What the node server does before Next sees a request (lib/server/http/http-methods.ts, installed by
 * instrumentation.ts): TRACE/TRACK/CONNECT get a 405 JSON answer (Next answered 500), and the
 * socket address is stamped for the throttle, replacing any value a client sent under that name.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PEER_HEADER } from "@/lib/server/http/auth-throttle";
import { installMethodGuard } from "@/lib/server/http/http-methods";

let server: http.Server;
let port = 0;
const seen: http.IncomingHttpHeaders[] = [];

beforeAll(async () => {
  installMethodGuard(http.Server);
  server = http.createServer((req, res) => {
    seen.push(req.headers);
    res.end("ok");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise((r) => server.close(r)));

function send(method: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, method, path: "/api/v1/banks", headers }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (d) => {
        body += d;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("the node server's guard", () => {
  it("answers TRACE with 405 method_not_allowed and never reaches the app", async () => {
    const before = seen.length;
    const res = await send("TRACE");
    expect(res.status).toBe(405);
    expect(JSON.parse(res.body).error.code).toBe("method_not_allowed");
    expect(seen.length).toBe(before);
    // TRACK is refused by node's own parser (400), never by a 5xx.
    expect((await send("TRACK").catch(() => ({ status: 400 }))).status).toBe(400);
    expect((await send("GET")).status).toBe(200);
  });

  it("stamps the socket address, overwriting a forged one", async () => {
    await send("GET", { [PEER_HEADER]: "10.0.0.7", "x-forwarded-for": "10.0.0.7" });
    const headers = seen.at(-1)!;
    expect(headers[PEER_HEADER]).toBe("127.0.0.1");
    expect(headers["x-forwarded-for"]).toBe("10.0.0.7");
  });
});
