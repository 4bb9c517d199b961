/**
 * A fork replays its parent's steps against today's memory: a replayed step whose tool results,
 * freshness verdict or offered tools differ from the parent's is marked, and the header says so.
 */
import { describe, expect, it } from "vitest";
import { useSharedApp } from "./harness";
import { startRunViaApi } from "./pages/api";
import { openRun, runIdOf, waitForStatus } from "./pages/run-page";
import { screenshotWidths } from "./pages/shots";

describe("fork drift", () => {
  const ctx = useSharedApp("e2e-fork-drift");

  it("marks replayed steps that differ from the parent and counts them in the header", async () => {
    const { page } = ctx.browser;
    const parentId = await startRunViaApi(
      ctx.app.url,
      {
        question: "What did we decide about the launch date?",
        wait: true,
      },
      ctx.bank,
    );
    // Today the launch plan is forced fresh: the replayed freshness check judges it differently.
    const model = (await (
      await fetch(`${ctx.app.url}/api/v1/banks/${ctx.bank}/mental-models/mm-launch-plan`)
    ).json()) as {
      mentalModel: { version: number; staleOverride: string | null };
    };
    const put = await fetch(`${ctx.app.url}/api/v1/banks/${ctx.bank}/mental-models/mm-launch-plan`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        expectedVersion: model.mentalModel.version,
        staleOverride: model.mentalModel.staleOverride === "stale" ? "fresh" : "stale",
      }),
    });
    expect(put.status).toBe(200);

    await openRun(page, ctx.app.url, parentId);
    await waitForStatus(page, "done");
    const last = (await page.getByTestId("fork-at").locator("option").count()) - 1;
    await page.getByTestId("fork-at").selectOption(String(last));
    await page.getByTestId("fork").click();
    await page.waitForURL((url) => url.pathname.startsWith("/runs/run_") && !url.pathname.endsWith(parentId));
    const forkId = runIdOf(page.url());
    expect(forkId).not.toBe(parentId);
    // The drift is worked out when the page loads: look once the fork has finished.
    await waitForStatus(page, "done", 60_000);
    await page.reload();
    await page.getByTestId("replay-drift").waitFor();
    const drift = await page.getByTestId("replay-drift").textContent();
    const n = Number(/(\d+) replayed steps? differs? from the parent run/.exec(drift ?? "")?.[1]);
    expect(n).toBeGreaterThan(0);
    expect(await page.getByTestId("replay-differs").count()).toBe(n);
    expect(await page.getByTestId("replay-differs").first().locator("[title]").getAttribute("title")).toMatch(
      /freshness check: parent .* → fork /,
    );
    // …and said in words on the page, not only in a tooltip.
    const notes = await page.getByTestId("replay-drift-note").allTextContents();
    expect(notes).toHaveLength(n);
    expect(notes.join("\n")).toMatch(/iteration \d+ — freshness check: parent .* → fork /);
    await screenshotWidths(page, "fork-drift-header");

    // The parent itself has no drift line.
    await openRun(page, ctx.app.url, parentId);
    expect(await page.getByTestId("replay-drift").count()).toBe(0);
  });
});
