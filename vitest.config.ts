import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const alias = { "@": fileURLToPath(new URL(".", import.meta.url)) };

/**
 * Integration files mostly wait (on SQLite, child processes, loopback servers): one per core, at
 * least two, where Vitest's default (cores − 1) runs them one at a time on a 2-core machine.
 */
const integrationWorkers = Math.max(2, availableParallelism());

export default defineConfig({
  resolve: { alias },
  test: {
    projects: [
      {
        resolve: { alias },
        test: { name: "unit", include: ["test/unit/**/*.test.ts"], environment: "node", sequence: { groupOrder: 0 } },
      },
      {
        // Randomised engine audits (issue 27): in memory, seconds, but too many runs for the unit tier.
        resolve: { alias },
        test: {
          name: "slow",
          include: ["test/slow/**/*.test.ts"],
          environment: "node",
          testTimeout: 120_000,
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
          maxWorkers: integrationWorkers,
          // Its own group: Vitest runs projects with different worker counts one group after another.
          sequence: { groupOrder: 1 },
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
          fileParallelism: false,
          globalSetup: ["test/e2e/global-setup.ts"],
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
