/**
 * `suite import|export` and `experiment run`: `runCli` in-process on a real libSQL file with the
 * offline model; a real process for a run cancelled from outside it (against the fake model server).
 * The gate's exit codes are the contract CI relies on.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDb } from "@/db/client";
import { getSkill } from "@/db/queries/skills";
import { getSuite } from "@/db/queries/suites";
import type { BundleInput } from "@/lib/contracts/bundle";
import { ExperimentJson } from "@/lib/contracts/experiments";
import { cancelExperiment, listExperiments } from "@/lib/server/services/experiments";
import { startFakeOpenAI } from "@/test/fixtures/fake-openai-server";
import { cliAsync, cliInProcess, root } from "./cli-process";

const dir = resolve(root, "test/.tmp", `cli-exp-${process.pid}-${Date.now()}`);
const dbUrl = `file:${join(dir, "cli.db")}`;

const cli = cliInProcess(dbUrl);

const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const jsonl = (...lines: unknown[]) => lines.map((l) => JSON.stringify(l)).join("\n");

/** A tiny bank whose memory change between two bundles moves one question each way. */
function bank(facts: { id: string; text: string }[]): BundleInput {
  return {
    version: 1,
    bank: { id: "gate", name: "Gate" },
    facts: facts.map((f) => ({ ...f, kind: "world", tags: [], scope: "personal", recordedAt: "2026-01-05T10:00:00Z" })),
    skills: [
      {
        id: "skill-recap",
        name: "recap",
        mission: "Answer from the bank's memories and cite them.",
        retrieval: { tags: [], types: ["observation", "episodic"] },
        budget: "low",
      },
    ],
    suites: [
      {
        name: "gate",
        questions: [{ question: "When is the Zephyr project deadline?" }, { question: "Who leads the Orion team?" }],
      },
    ],
  };
}
const ZEPHYR = { id: "f-zephyr", text: "The Zephyr project deadline is March 3, agreed at the planning review." };
const ORION = { id: "f-orion", text: "Priya Natarajan leads the Orion team since January." };

beforeAll(() => mkdirSync(dir, { recursive: true }));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("cli experiment run", { timeout: 240_000 }, () => {
  it("the demo suite passes every expectation: exit 0, one JSON object, runs linked, progress on stderr", async () => {
    const out = await cli("experiment", "run", "--bank", "demo", "--suite", "demo-tour", "--json");
    expect(out.stderr).toMatch(/\[10\/10\] 10 passed, 0 failed/);
    expect(out.code).toBe(0);
    const json = ExperimentJson.parse(JSON.parse(out.stdout));
    expect(json.suite).toBe("demo-tour");
    expect(json.totals).toEqual({
      questions: 10,
      passed: 10,
      failed: 0,
      skipped: 0,
      regressions: 0,
      improvements: 0,
      notCompared: 0,
    });
    expect(json.results.every((r) => r.passed && r.runId?.startsWith("run_") && r.failures.length === 0)).toBe(true);
    // The scorecard: every question counted overall, each row its scores.
    expect(json.scorecard?.overall).toMatchObject({ questions: 10, finished: 10, passed: 10, passRate: 1 });
    expect(json.scorecard?.overall.latencyP95Ms).toBeGreaterThan(0);
    expect(json.results.every((r) => r.scores !== null && r.reason === null)).toBe(true);
    expect(json.config).toMatchObject({ draft: false, model: { kind: "offline" } });
  });

  it("--skill-version naming the current version is the current state, not a draft", async () => {
    const path = file("one-recap.jsonl", jsonl({ question: "When did Atlas launch?", skill: "recap" }));
    expect((await cli("suite", "import", "--bank", "demo", "--suite", "one-recap", path)).code).toBe(0);
    const db = await openDb(dbUrl);
    const version = (await getSkill(db, { bankId: "demo", name: "recap" }))?.version;
    db.$client.close();
    const out = await cli(
      "experiment",
      "run",
      "--bank",
      "demo",
      "--suite",
      "one-recap",
      "--skill-version",
      String(version),
      "--json",
    );
    expect(out.code).toBe(0);
    const json = ExperimentJson.parse(JSON.parse(out.stdout));
    expect(json.config).toMatchObject({ draft: false, skill: { name: "recap", version } });
  });

  it("one failing expectation exits 1 and names it in the table", async () => {
    const path = file(
      "one-fails.jsonl",
      jsonl(
        { question: "When did Atlas launch?", expect: { contains: ["October 20"] } },
        { question: "How much does the Team plan cost?", skill: "recap", expect: { contains: ["$1,000,000"] } },
      ),
    );
    expect((await cli("suite", "import", "--bank", "demo", "--suite", "one-fails", path)).code).toBe(0);
    const out = await cli("experiment", "run", "--bank", "demo", "--suite", "one-fails", "--concurrency", "1");
    expect(out.code).toBe(1);
    expect(out.stdout).toMatch(/FAIL .*How much does the Team plan cost\?/);
    expect(out.stdout).toContain('✗ contains: the answer does not contain "$1,000,000"');
    expect(out.stdout).toMatch(/2 questions: 1 passed, 1 failed/);
  });

  it("a baseline comparison flags a regression (lost citation, worse status) and an improvement, and exits 1", async () => {
    expect((await cli("import", file("v1.json", JSON.stringify(bank([ZEPHYR]))))).code).toBe(0);
    const base = ExperimentJson.parse(
      JSON.parse((await cli("experiment", "run", "--bank", "gate", "--suite", "gate", "--json")).stdout),
    );
    expect(base.results.map((r) => r.status)).toEqual(["done", "no_evidence"]);

    // The memory change: Zephyr's fact is gone, Orion's arrives.
    expect((await cli("import", "--replace", file("v2.json", JSON.stringify(bank([ORION]))))).code).toBe(0);
    const out = await cli("experiment", "run", "--bank", "gate", "--suite", "gate", "--baseline", base.id);
    expect(out.code).toBe(1);
    expect(out.stdout).toContain("↓ regression (status): done → no_evidence");
    expect(out.stdout).toContain("↓ regression (citation): no longer cites f-zephyr");
    expect(out.stdout).toContain("↑ improvement (status): no_evidence → done");
    expect(out.stdout).toMatch(/against exp_\w+: 1 regression, 1 improvement/);

    const json = ExperimentJson.parse(
      JSON.parse(
        (await cli("experiment", "run", "--bank", "gate", "--suite", "gate", "--baseline", base.id, "--json")).stdout,
      ),
    );
    expect(json.totals).toMatchObject({ regressions: 1, improvements: 1, failed: 0 });
    expect(json.results.map((r) => r.regression)).toEqual([true, false]);
    // Compared with itself, the same state shows no regression: the gate passes.
    expect((await cli("experiment", "run", "--bank", "gate", "--suite", "gate", "--baseline", json.id)).code).toBe(0);

    // Both facts back: the question that lost its status gets it back. A better status is never a
    // regression, and each question is one verdict: exit 0.
    expect((await cli("import", "--replace", file("v3.json", JSON.stringify(bank([ZEPHYR, ORION]))))).code).toBe(0);
    const both = await cli("experiment", "run", "--bank", "gate", "--suite", "gate", "--baseline", json.id, "--json");
    expect(both.code).toBe(0);
    const bothJson = ExperimentJson.parse(JSON.parse(both.stdout));
    expect(bothJson.totals).toMatchObject({ regressions: 0, improvements: 1 });
    expect(bothJson.results.map((r) => [r.regression, r.reason?.split(":")[0] ?? null])).toEqual([
      [false, "improved"],
      [false, null],
    ]);
    expect(bothJson.results[0]?.reason).toContain("no_evidence → done");
  });
});

describe("cli experiment run, cancelled", { timeout: 240_000 }, () => {
  /**
   * Three questions one at a time against the fake model; the first question's model call is held
   * until the test has cancelled the experiment (from this process, as the page or API would), so
   * the other two never start.
   */
  async function cancelledRun(...flags: string[]) {
    const fake = await startFakeOpenAI();
    let open = () => {};
    const gate = new Promise<void>((resolve) => (open = resolve));
    const answer = "No memory mentions the Zephyr deadline.";
    fake.setScript((_body, i) => (i === 0 ? { content: answer, waitFor: gate } : { content: answer }));
    const db = await openDb(dbUrl);
    try {
      const suite = `cancel-${flags.length ? "json" : "table"}`;
      // The fake answers in prose and never searches, so Q1's run fails; its expectation says that is
      // expected (a run that broke fails a question that does not expect it).
      const path = file(
        `${suite}.jsonl`,
        jsonl({ question: "Q1 Zephyr?", expect: { status: ["failed"] } }, { question: "Q2?" }, { question: "Q3?" }),
      );
      expect((await cli("suite", "import", "--bank", "demo", "--suite", suite, path)).code).toBe(0);
      const env = { DATABASE_URL: dbUrl, REFLECT_LLM: "openai", OPENAI_API_KEY: "k", OPENAI_BASE_URL: fake.url };
      const running = cliAsync(
        env,
        "experiment",
        "run",
        "--bank",
        "demo",
        "--suite",
        suite,
        "--concurrency",
        "1",
        ...flags,
      );
      while (!fake.requests.some((r) => r.path === "/v1/chat/completions")) await new Promise((r) => setTimeout(r, 50));
      const [experiment] = await listExperiments(db, { bankId: "demo", suite });
      expect(experiment?.status).toBe("running");
      await cancelExperiment(db, experiment?.id ?? "");
      open();
      return await running;
    } finally {
      db.$client.close();
      await fake.close();
    }
  }

  it("--json: the questions that never ran are skipped with passed null; exit 3 (incomplete), not 1", async () => {
    const out = await cancelledRun("--json");
    expect(out.code).toBe(3);
    expect(out.stderr).toContain("experiment cancelled: 2 questions skipped (not run); no expectation failed");
    const json = ExperimentJson.parse(JSON.parse(out.stdout));
    expect(json.results.map((r) => [r.status, r.passed, r.runId === null])).toEqual([
      [expect.not.stringMatching(/skipped|pending/), true, false],
      ["skipped", null, true],
      ["skipped", null, true],
    ]);
    expect(json.results.every((r) => r.failures.length === 0)).toBe(true);
    expect(json.totals).toMatchObject({ questions: 3, passed: 1, failed: 0, skipped: 2 });
  });

  it("an incomplete baseline is refused (exit 2, saying why); allowed, only questions run on both sides are compared", async () => {
    const cancelled = ExperimentJson.parse(JSON.parse((await cancelledRun("--json")).stdout));
    const suite = "cancel-json";
    const refused = await cli("experiment", "run", "--bank", "demo", "--suite", suite, "--baseline", cancelled.id);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      `baseline ${cancelled.id} is not complete (cancelled, 2 of 3 questions never ran)`,
    );
    expect(refused.stderr).toContain("--allow-incomplete-baseline");
    expect(refused.stdout).toBe("");
    const allowed = await cli(
      "experiment",
      "run",
      "--bank",
      "demo",
      "--suite",
      suite,
      "--baseline",
      cancelled.id,
      "--allow-incomplete-baseline",
    );
    // Q1 expects a failed run and the offline model answers it: the gate fails on that, not on the baseline.
    expect(allowed.code).toBe(1);
    expect(allowed.stdout).toMatch(
      /against exp_\w+: 0 regressions, 1 improvement, 2 questions not compared \(not run on both sides\)/,
    );
  });

  it("the table says skip, never FAIL, and counts them apart", async () => {
    const out = await cancelledRun();
    expect(out.code).toBe(3);
    expect(out.stdout).toMatch(/\n\s+2 {2}skip {4}skipped\s+0 {2}Q2\?/);
    expect(out.stdout).not.toContain("FAIL");
    expect(out.stdout).toMatch(/3 questions: 1 passed, 0 failed, 2 skipped \(not run\)/);
  });
});

describe("cli suite import / export", { timeout: 120_000 }, () => {
  it("round-trips JSONL", async () => {
    const lines = [
      {
        question: "When did Atlas launch?",
        skill: "recap",
        budget: "low",
        expect: { status: ["done"], mustCite: ["f-152"] },
      },
      { question: "What is blocking the SSO rollout?", mode: "facts", scope: "personal" },
    ];
    expect(
      (await cli("suite", "import", "--bank", "demo", "--suite", "round-trip", file("rt.jsonl", jsonl(...lines))))
        .stdout,
    ).toMatch(/imported suite round-trip \(version 1\): 2 questions/);
    const out = await cli("suite", "export", "--bank", "demo", "--suite", "round-trip");
    expect(out.code).toBe(0);
    expect(
      out.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l)),
    ).toEqual(lines);
  });

  it("refuses a bad line with its number and imports nothing", async () => {
    const path = file(
      "bad.jsonl",
      `${jsonl({ question: "A?" }, { question: "B?" })}\n{"question":"C?","expect":{"status":["great"]}}\n`,
    );
    const out = await cli("suite", "import", "--bank", "demo", "--suite", "bad-one", path);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/^error: line 3: expect\.status\.0: .*nothing was imported/);
    const db = await openDb(dbUrl);
    try {
      expect(await getSuite(db, "demo", "bad-one")).toBeNull();
    } finally {
      db.$client.close();
    }
  });

  it("refuses a line naming a skill the bank does not have, by its number, and imports nothing (a saved suite stays)", async () => {
    const good = file("known.jsonl", jsonl({ question: "A?", skill: "recap" }));
    expect((await cli("suite", "import", "--bank", "demo", "--suite", "skills-checked", good)).code).toBe(0);
    const path = file(
      "unknown-skill.jsonl",
      `${jsonl({ question: "A?", skill: "recap" })}\n\n${jsonl({ question: "B?", skill: "nope" })}\n`,
    );
    const out = await cli("suite", "import", "--bank", "demo", "--suite", "skills-checked", path);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(
      /^error: line 3: skill "nope" is not a skill of bank demo \(it has .*recap.*\); nothing was imported\n$/,
    );
    const db = await openDb(dbUrl);
    try {
      const suite = await getSuite(db, "demo", "skills-checked");
      expect(suite?.version).toBe(1);
      expect(suite?.questions.map((q) => q.question)).toEqual(["A?"]);
    } finally {
      db.$client.close();
    }
  });

  it.each([
    [["suite", "import", "--bank", "demo", "--suite", "has space", "x.jsonl"], /suite name is a slug/],
    [["suite", "export", "--bank", "demo", "--suite", "nope"], /unknown suite "nope"/],
    [["experiment", "run", "--bank", "demo"], /--suite is required/],
    [["experiment", "run", "--bank", "demo", "--suite", "demo-tour", "--concurrency", "0"], /--concurrency/],
    [["experiment", "run", "--bank", "demo", "--suite", "demo-tour", "--skill-version", "1"], /runs 5 skills/],
    // Said once: the field's message used to be repeated after the sentence that held it.
    [
      ["experiment", "run", "--bank", "demo", "--suite", "demo-tour", "--baseline", "exp_nope"],
      /^error: baseline "exp_nope" is not an experiment of bank demo\n$/,
    ],
    [
      ["experiment", "run", "--bank", "demo", "--suite", "demo-tour", "--allow-incomplete-baseline"],
      /--allow-incomplete-baseline applies to a --baseline/,
    ],
  ])("bad input %j exits 2 with one line", async (args, message) => {
    const out = await cli(...args);
    expect(out.code).toBe(2);
    expect(out.stderr.trim().split("\n")).toHaveLength(1);
    expect(out.stderr).toMatch(message);
  });
});
