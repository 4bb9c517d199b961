/**
 * A server whose DATABASE_URL cannot be opened: the routes answer 503 JSON (code `unavailable`,
 * no path in the body) and the server log gets one line naming the path and the cause.
 */
import { mkdirSync, rmSync } from "node:fs";
import { resolve } from "node:path";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";

const folder = vi.hoisted(() => {
  // A folder where the database file should be.
  const path = `${process.cwd()}/test/.tmp/unavailable-${process.pid}-${Date.now()}`;
  process.env.DATABASE_URL = `file:${path}`;
  process.env.REFLECT_LLM = "offline";
  return path;
});

import * as memory from "@/app/api/banks/[bank]/memory/route";
import * as health from "@/app/api/health/route";
import * as banks from "@/app/api/v1/banks/route";
import * as runs from "@/app/api/v1/runs/route";

mkdirSync(resolve(folder), { recursive: true });
afterAll(() => rmSync(folder, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

const BODY = { error: { code: "unavailable", message: "The database cannot be opened; the server log says why." } };
const LOG = `error: cannot open the database ${folder} (DATABASE_URL=file:${folder}): it is a folder, not a database file`;

describe("a database that cannot be opened", () => {
  it.each([
    ["GET /api/health", () => health.GET()],
    ["GET /api/v1/banks", () => banks.GET(new Request("http://127.0.0.1/api/v1/banks"), {})],
    ["GET /api/v1/runs", () => runs.GET(new Request("http://127.0.0.1/api/v1/runs"), {})],
    [
      "GET /api/banks/demo/memory",
      () =>
        memory.GET(new Request("http://127.0.0.1/api/banks/demo/memory"), {
          params: Promise.resolve({ bank: "demo" }),
        }),
    ],
  ])("%s answers 503 JSON and logs the path and the cause", async (_route, send) => {
    const log = vi.spyOn(console, "error").mockImplementation(() => {});
    const res = await send();
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual(BODY);
    expect(log.mock.calls.map((c) => String(c[0]))).toEqual([LOG]);
  });
});
