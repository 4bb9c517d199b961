/**
 * Admission control (lib/server/runtime/admission.ts) through the real route handlers over a temp database
 * with the demo bank and the offline model: a request past the slots waits and then completes, one
 * past the queue is refused with 503 `too_busy` and Retry-After, a client that leaves is dropped
 * from the queue, a detached reflect holds its slot until its run ends, and /api/health never waits.
 */
import { mkdirSync, rmSync } from "node:fs";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

const dbFile = vi.hoisted(() => {
  const path = `${process.cwd()}/test/.tmp/admission-${process.pid}-${Date.now()}.db`;
  process.env.DATABASE_URL = `file:${path}`;
  process.env.REFLECT_LLM = "offline";
  return path;
});

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { startRunAction } from "@/app/actions/runs";
import * as health from "@/app/api/health/route";
import * as recall from "@/app/api/v1/banks/[bank]/recall/route";
import * as reflect from "@/app/api/v1/banks/[bank]/reflect/route";
import { getRun, listRuns } from "@/db/queries/runs";
import { createMcpServer } from "@/lib/server/http/mcp";
import { ADMISSION_LIMITS, admissionState, admit, type Slot } from "@/lib/server/runtime/admission";
import { getAppDb } from "@/lib/server/runtime/db";
import { startExperiment } from "@/lib/server/services/experiments";
import { saveBankSuite } from "@/lib/server/services/suites";

type Handler = (request: Request, ctx: { params: Promise<Record<string, string> | undefined> }) => Promise<Response>;

function post(handler: Handler, body: unknown, signal?: AbortSignal): Promise<Response> {
  const request = new Request("http://127.0.0.1/api/v1/x", {
    method: "POST",
    body: JSON.stringify(body),
    headers: { "content-type": "application/json" },
    signal,
  });
  return handler(request, { params: Promise.resolve({ bank: "demo" }) });
}

/** Takes every slot of the class; the returned function gives them back. */
async function fill(work: "recall" | "reflect"): Promise<() => void> {
  const slots: Slot[] = [];
  for (let i = 0; i < ADMISSION_LIMITS[work].concurrency; i++) slots.push(await admit(work));
  return () => {
    for (const s of slots) s.release();
  };
}

const settled = async <T>(p: Promise<T>) => {
  let done = false;
  p.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  await new Promise((r) => setTimeout(r, 50));
  return done;
};

beforeAll(async () => {
  mkdirSync(resolve(process.cwd(), "test/.tmp"), { recursive: true });
  await getAppDb();
});
afterAll(async () => {
  (await getAppDb()).$client.close();
  for (const suffix of ["", "-wal", "-shm"]) rmSync(`${dbFile}${suffix}`, { force: true });
});

describe("admission control", () => {
  it("a recall past the slots waits in the queue and completes once a slot frees", async () => {
    const release = await fill("recall");
    const queued = post(recall.POST, { query: "launch date" });
    try {
      expect(await settled(queued)).toBe(false);
      await vi.waitFor(() =>
        expect(admissionState().recall).toMatchObject({ active: ADMISSION_LIMITS.recall.concurrency, waiting: 1 }),
      );
    } finally {
      release();
    }
    const res = await queued;
    expect(res.status).toBe(200);
    expect((await res.json()).count).toBeGreaterThan(0);
    expect(admissionState().recall).toMatchObject({ active: 0, waiting: 0 });
  });

  it("past the queue: 503 too_busy with Retry-After, at once; /api/health still answers", async () => {
    const release = await fill("recall");
    const waiters = Array.from({ length: ADMISSION_LIMITS.recall.queue }, () => admit("recall"));
    try {
      const refused = await post(recall.POST, { query: "launch date" });
      expect(refused.status).toBe(503);
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
      expect((await refused.json()).error.code).toBe("too_busy");
      const ok = await health.GET();
      expect(ok.status).toBe(200);
      expect((await ok.json()).admission.recall).toMatchObject({
        active: ADMISSION_LIMITS.recall.concurrency,
        waiting: ADMISSION_LIMITS.recall.queue,
      });
    } finally {
      release();
      for (const w of waiters) (await w).release();
    }
    expect(admissionState().recall).toMatchObject({ active: 0, waiting: 0 });
  });

  it("a client that goes away while queued leaves the queue", async () => {
    const release = await fill("recall");
    const abort = new AbortController();
    const queued = post(recall.POST, { query: "launch date" }, abort.signal);
    try {
      expect(await settled(queued)).toBe(false);
      abort.abort();
      expect((await queued).status).toBe(503);
      expect(admissionState().recall.waiting).toBe(0);
    } finally {
      release();
    }
    expect(admissionState().recall.active).toBe(0);
  });

  it("a detached reflect (wait: false) holds its slot until its run ends", async () => {
    const res = await post(reflect.POST, { question: "What did we decide about the launch date?" });
    expect(res.status).toBe(202);
    const { runId } = (await res.json()) as { runId: string };
    const db = await getAppDb();
    let status = (await getRun(db, runId))?.status;
    if (status === "running") expect(admissionState().reflect.active).toBe(1);
    for (let i = 0; i < 200 && status === "running"; i++) {
      await new Promise((r) => setTimeout(r, 25));
      status = (await getRun(db, runId))?.status;
    }
    expect(status).toBe("done");
    await vi.waitFor(() => expect(admissionState().reflect.active).toBe(0));
  });
  it("a client still uploading its body holds no slot: other recalls are served meanwhile", async () => {
    const uploads: ReadableStreamDefaultController<Uint8Array>[] = [];
    const slow = Array.from({ length: ADMISSION_LIMITS.recall.concurrency }, () => {
      const body = new ReadableStream<Uint8Array>({
        start(c) {
          c.enqueue(new TextEncoder().encode('{"query":'));
          uploads.push(c);
        },
      });
      const init = { method: "POST", body, headers: { "content-type": "application/json" }, duplex: "half" };
      return recall.POST(new Request("http://127.0.0.1/api/v1/x", init as RequestInit), {
        params: Promise.resolve({ bank: "demo" }),
      });
    });
    try {
      await new Promise((r) => setTimeout(r, 50));
      expect(admissionState().recall.active).toBe(0);
      const res = await post(recall.POST, { query: "launch date" });
      expect(res.status).toBe(200);
    } finally {
      for (const c of uploads) {
        c.enqueue(new TextEncoder().encode('"launch"}'));
        c.close();
      }
    }
    for (const res of await Promise.all(slow)) expect(res.status).toBe(200);
    expect(admissionState().recall).toMatchObject({ active: 0, waiting: 0 });
  });
  it("a refusal is a 503 in a route bundled with its own copy of the modules (as Next does)", async () => {
    const release = await fill("recall");
    const waiters = Array.from({ length: ADMISSION_LIMITS.recall.queue }, () => admit("recall"));
    try {
      // A second module graph: its AppError is another class, its gates the same process-wide ones.
      vi.resetModules();
      const other = await import("@/app/api/v1/banks/[bank]/recall/route");
      const refused = await post(other.POST, { query: "launch date" });
      expect(refused.status).toBe(503);
      expect(refused.headers.get("retry-after")).toBe("2");
      expect((await refused.json()).error.code).toBe("too_busy");
    } finally {
      release();
      for (const w of waiters) (await w).release();
    }
  });
});

describe("every run takes a reflect slot, whatever started it (issue #28 item 2)", () => {
  const QUESTION = "What did we decide about the launch date?";

  it("a server action's run waits for a slot, and past the queue is answered too_busy like the API", async () => {
    const release = await fill("reflect");
    const db = await getAppDb();
    let waiters: Promise<Slot>[] = [];
    try {
      const queued = startRunAction({ bankId: "demo", question: QUESTION });
      expect(await settled(queued)).toBe(false);
      // Its bank and skill reads come first: under load it reaches the line after a while, never past it.
      await vi.waitFor(() => expect(admissionState().reflect.waiting).toBe(1));
      waiters = Array.from({ length: ADMISSION_LIMITS.reflect.queue - 1 }, () => admit("reflect"));
      const refused = await startRunAction({ bankId: "demo", question: QUESTION });
      expect(refused).toMatchObject({ ok: false, error: { code: "too_busy" } });
      const mcp = await mcpClient();
      const busy = await mcp.callTool({ name: "memory_reflect", arguments: { question: QUESTION } });
      expect(busy.isError).toBe(true);
      expect(JSON.stringify(busy.content)).toMatch(/too_busy|already running/);
      await mcp.close();
      release();
      for (const w of waiters) (await w).release();
      const started = await queued;
      expect(started.ok).toBe(true);
      if (started.ok) await vi.waitFor(async () => expect((await getRun(db, started.data.runId))?.status).toBe("done"));
    } finally {
      release();
    }
    await vi.waitFor(() => expect(admissionState().reflect).toMatchObject({ active: 0, waiting: 0 }));
  });

  it("an experiment's questions queue for slots (never refused, even past the queue cap); running runs never exceed the slots", async () => {
    const db = await getAppDb();
    await saveBankSuite(db, {
      bankId: "demo",
      name: "admission",
      description: "",
      questions: Array.from({ length: 6 }, (_, i) => ({ question: `${QUESTION} (${i})` })),
      expectedVersion: 0,
    });
    const release = await fill("reflect");
    const waiters = Array.from({ length: ADMISSION_LIMITS.reflect.queue }, () => admit("reflect"));
    const { experimentId, finished } = await startExperiment(db, {
      bankId: "demo",
      suite: "admission",
      config: { mentalModels: [] },
      concurrency: 4,
    } as never);
    try {
      await vi.waitFor(() => expect(admissionState().reflect.waiting).toBe(ADMISSION_LIMITS.reflect.queue + 4));
      // Nothing of the experiment runs while the slots are taken.
      expect((await listRuns(db, { bankId: "demo", status: "running" })).runs).toEqual([]);
    } finally {
      release();
      for (const w of waiters) (await w).release();
    }
    let peak = 0;
    const watch = setInterval(() => {
      peak = Math.max(peak, admissionState().reflect.active);
    }, 5);
    const experiment = await finished;
    clearInterval(watch);
    expect(experiment.id).toBe(experimentId);
    expect(experiment.totals.skipped).toBe(0);
    expect(peak).toBeLessThanOrEqual(ADMISSION_LIMITS.reflect.concurrency);
    await vi.waitFor(() => expect(admissionState().reflect).toMatchObject({ active: 0, waiting: 0 }));
  });
});

async function mcpClient(): Promise<Client> {
  const server = createMcpServer({ getDb: getAppDb });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "admission-test", version: "1.0.0" });
  await client.connect(clientSide);
  return client;
}
