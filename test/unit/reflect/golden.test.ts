/**
 * Golden event logs: with a fixed clock, sequential ids and a scripted model, a run's event log is
 * byte-for-byte reproducible. Regenerate with `UPDATE_GOLDEN=1 npx vitest run --project unit test/unit/reflect/golden.test.ts`.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runReflect } from "@/lib/reflect/engine";
import { RunEvent } from "@/lib/reflect/events";
import { harness, request } from "./harness";
import { SCENARIOS, type ScenarioName } from "./scenarios";

const GOLDEN: Record<string, ScenarioName> = {
  fresh: "fresh",
  stale: "stale",
  halted: "halted",
  "no-evidence": "noEvidence",
  degraded: "degraded",
};

async function eventLog(name: ScenarioName): Promise<string> {
  const { memory, model, overrides } = SCENARIOS[name]();
  const h = harness(memory, model);
  await runReflect(h.deps, request({ runId: `run_golden_${name}`, ...overrides }));
  return `${h.events.map((e) => JSON.stringify(e)).join("\n")}\n`;
}

describe("golden event logs", () => {
  for (const [file, scenario] of Object.entries(GOLDEN)) {
    it(`${file}: the event log is byte-identical to test/fixtures/golden/${file}.jsonl`, async () => {
      const path = fileURLToPath(new URL(`../../fixtures/golden/${file}.jsonl`, import.meta.url));
      const log = await eventLog(scenario);
      expect(await eventLog(scenario)).toBe(log);
      if (process.env.UPDATE_GOLDEN === "1" || !existsSync(path)) {
        if (process.env.UPDATE_GOLDEN !== "1") throw new Error(`missing golden file ${path}; run with UPDATE_GOLDEN=1`);
        writeFileSync(path, log);
      }
      const golden = readFileSync(path, "utf8");
      expect(log).toBe(golden);
      for (const line of golden.trimEnd().split("\n")) RunEvent.parse(JSON.parse(line));
    });
  }
});
