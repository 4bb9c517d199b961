/**
 * The production app with DATABASE_URL pointing at a libSQL server (sqld) instead of a file: it
 * migrates and seeds the server on first use and serves the demo bank from it.
 */
import { createClient } from "@libsql/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SqldNode, skipSqld, startSqldPrimary } from "../integration/sqld/sqld-server";
import { type RunningApp, startApp } from "./harness";

describe.skipIf(skipSqld)("the app against a libSQL server", () => {
  let sqld: SqldNode | undefined;
  let app: RunningApp | undefined;

  beforeAll(async () => {
    sqld = await startSqldPrimary();
    // A server of its own: its database is a libSQL server (DATABASE_URL), not the shared file.
    app = await startApp({ DATABASE_URL: sqld.url });
  });
  afterAll(async () => {
    await app?.stop();
    await sqld?.stop();
  });

  it("serves the demo bank's memory page and API from the server", async () => {
    if (!app || !sqld) throw new Error("not started");
    const html = await (await fetch(`${app.url}/memory`)).text();
    expect(html).toContain("Northwind Atlas");
    expect(html).toContain('data-model-id="mm-launch-plan"');

    const res = await fetch(`${app.url}/api/banks/demo/memory?tier=facts&q=SAML%20SSO`);
    expect(res.status).toBe(200);
    const page = (await res.json()) as { tier: string; items: { id: string; text: string }[] };
    expect(page.tier).toBe("facts");
    expect(page.items.map((f) => f.id)).toContain("f-005");

    // The bank lives in the server, not in a local file.
    const direct = createClient({ url: sqld.url });
    try {
      const banks = await direct.execute("SELECT id FROM banks");
      expect(banks.rows.map((r) => String(r.id))).toEqual(["demo"]);
    } finally {
      direct.close();
    }
  });
});
