import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const alias = { "@": fileURLToPath(new URL(".", import.meta.url)) };

/**
 * Unit, slow and integration files run in one pool of workers: one per core, at least two, where
 * Vitest's default (cores − 1) runs them one at a time on a 2-core machine. Integration files mostly
 * wait (on SQLite, child processes, loopback servers); one group, so no core idles while the last
 * file of one project finishes before the next project starts.
 */
const workers = Math.max(2, availableParallelism());

/**
 * e2e files share one app server and one Chromium (test/e2e/global-setup.ts) and each works on a
 * bank of its own (test/e2e/harness.ts), so two run at once: most of a file's time is spent waiting
 * on the browser and the server.
 */
const e2eWorkers = 2;

export default defineConfig({
  resolve: { alias },
  test: {
    projects: [
      {
        resolve: { alias },
        test: {
          name: "unit",
          include: ["test/unit/**/*.test.ts"],
          environment: "node",
          // Pure tests: a worker's files share its loaded modules instead of loading the whole
          // graph again for each file (the unit project's CPU 31 s → 11 s; checked with
          // --sequence.shuffle). Integration files keep isolation: they point process-wide
          // singletons (the app's database, admission, the run owner) at their own files.
          isolate: false,
          maxWorkers: workers,
          sequence: { groupOrder: 0 },
        },
      },
      {
        // Randomised engine audits (issue 27): in memory, seconds, but too many runs for the unit tier.
        resolve: { alias },
        test: {
          name: "slow",
          include: ["test/slow/**/*.test.ts"],
          environment: "node",
          testTimeout: 120_000,
          maxWorkers: workers,
          sequence: { groupOrder: 0 },
        },
      },
      {
        resolve: { alias },
        test: {
          name: "integration",
          include: ["test/integration/**/*.test.ts"],
          environment: "node",
          testTimeout: 30_000,
          maxWorkers: workers,
          sequence: { groupOrder: 0 },
        },
      },
      {
        resolve: { alias },
        test: {
          name: "e2e",
          include: ["test/e2e/**/*.test.ts"],
          environment: "node",
          testTimeout: 120_000,
          hookTimeout: 600_000,
          maxWorkers: e2eWorkers,
          globalSetup: ["test/e2e/global-setup.ts"],
          // After the rest when one vitest run holds every project (`npx vitest run`, `npm test --
          // <filter>`): its own group, with a worker count of its own. A plain `npm test` runs it
          // as a vitest run of its own beside the others (scripts/test.mjs).
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
