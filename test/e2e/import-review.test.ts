/**
 * The import page (/memory/import) as a user who does odd things (the review of the page,
 * docs/curation.md#import-a-bank): keyboard only, by the controls' accessible names; a `.json` that is
 * JSON lines (with a byte-order mark and CRLF line ends) and a pretty-printed `.jsonl`, both imported
 * by what they hold; a 0-byte file refused before anything is sent; the page at 390 px, light and dark,
 * with nothing wider than the screen.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TMP, useSharedApp } from "./harness";
import { waitForHydrated } from "./pages/hydrated";

const fact = (id: string, text: string) => ({
  id,
  text,
  kind: "world",
  tags: [],
  scope: "personal",
  recordedAt: "2026-01-01T00:00:00Z",
});
const bankOf = (id: string) => ({ id, name: `Bank ${id}`, permittedTeams: [] });

let dir = "";
beforeAll(() => {
  mkdirSync(TMP, { recursive: true });
  dir = mkdtempSync(join(TMP, "import-review-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

async function bankIds(url: string): Promise<string[]> {
  const res = await fetch(`${url}/api/v1/banks`);
  return ((await res.json()) as { banks: { id: string }[] }).banks.map((b) => b.id);
}

describe("import page, used oddly", () => {
  const ctx = useSharedApp("e2e-import-review");

  it("every control has its name, and a bundle imports by keyboard alone (Tab to replace, Space, Tab, Enter)", async () => {
    const { page } = ctx.browser;
    await page.goto(`${ctx.app.url}/memory/import`);
    await waitForHydrated(page, "bundle-file");
    // The accessible names a screen reader reads.
    const fileInput = page.getByLabel("Bundle (.json or .jsonl)");
    expect(await fileInput.getAttribute("type")).toBe("file");
    for (const name of ["Base URL", "Bank id on the Hindsight server", "Import as (bank id here, optional)"])
      expect(await page.getByRole("textbox", { name }).count()).toBe(1);
    expect(await page.getByLabel("API key (optional)").getAttribute("type")).toBe("password");
    expect(await page.getByRole("checkbox", { name: /Replace the bank/ }).count()).toBe(2);
    // The file itself comes from the system's dialog; everything after it by keyboard.
    const path = file(
      "keys.json",
      JSON.stringify({ version: 1, bank: bankOf("e2e-review-keys"), facts: [fact("f1", "Keys.")] }),
    );
    await fileInput.setInputFiles(path);
    await fileInput.focus();
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.getAttribute("data-testid"))).toBe("bundle-replace");
    await page.keyboard.press("Space");
    expect(await page.getByTestId("bundle-replace").isChecked()).toBe(true);
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.getAttribute("data-testid"))).toBe("bundle-import");
    await page.keyboard.press("Enter");
    await page.getByTestId("bundle-import-result").waitFor();
    expect(await page.getByTestId("bundle-import-result").textContent()).toMatch(/e2e-review-keys: 1 fact/);
  });

  it("a .json of JSON lines (byte-order mark, CRLF) and a pretty-printed .jsonl import by what they hold", async () => {
    const { page } = ctx.browser;
    await page.goto(`${ctx.app.url}/memory/import`);
    await waitForHydrated(page, "bundle-file");
    const lines = [
      JSON.stringify({ version: 1, bank: bankOf("e2e-review-lines") }),
      JSON.stringify({ fact: fact("f1", "One.") }),
      JSON.stringify({ fact: fact("f2", "Two.") }),
    ];
    await page.getByTestId("bundle-file").setInputFiles(file("lines.json", `\uFEFF${lines.join("\r\n")}\r\n`));
    await page.getByTestId("bundle-import").click();
    await page.getByTestId("bundle-import-result").waitFor();
    expect(await page.getByTestId("bundle-import-result").textContent()).toMatch(/e2e-review-lines: 2 facts/);
    const doc = { version: 1, bank: bankOf("e2e-review-doc"), facts: [fact("f1", "Pretty.")] };
    await page.getByTestId("bundle-file").setInputFiles(file("doc.jsonl", JSON.stringify(doc, null, 2)));
    await page.getByTestId("bundle-import").click();
    await page.getByText(/e2e-review-doc: 1 fact/).waitFor();
    expect(await bankIds(ctx.app.url)).toEqual(expect.arrayContaining(["e2e-review-lines", "e2e-review-doc"]));
  });

  it("a 0-byte file is refused on the page: no request leaves, nothing imported", async () => {
    const { page } = ctx.browser;
    await page.goto(`${ctx.app.url}/memory/import`);
    await waitForHydrated(page, "bundle-file");
    const posts: string[] = [];
    page.on("request", (r) => {
      if (r.method() === "POST") posts.push(r.url());
    });
    const before = await bankIds(ctx.app.url);
    await page.getByTestId("bundle-file").setInputFiles(file("empty.json", ""));
    await page.getByTestId("bundle-import").click();
    await page.getByTestId("bundle-import-error").waitFor();
    expect(await page.getByTestId("bundle-import-error").textContent()).toMatch(
      /empty\.json is empty; nothing was imported/,
    );
    expect(posts).toEqual([]);
    expect(await bankIds(ctx.app.url)).toEqual(before);
  });

  it("at 390 px, light and dark, nothing is wider than the screen and both forms are reachable", async () => {
    const { page } = ctx.browser;
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      for (const colorScheme of ["light", "dark"] as const) {
        await page.emulateMedia({ colorScheme });
        await page.goto(`${ctx.app.url}/memory/import`);
        await waitForHydrated(page, "bundle-file");
        const widths = await page.evaluate(() => ({
          scroll: document.documentElement.scrollWidth,
          client: document.documentElement.clientWidth,
        }));
        expect(widths.scroll, colorScheme).toBeLessThanOrEqual(widths.client);
        for (const id of ["bundle-import", "hindsight-url"]) {
          const box = await page.getByTestId(id).boundingBox();
          expect(box, id).not.toBeNull();
          expect(box!.x + box!.width, id).toBeLessThanOrEqual(390);
        }
      }
    } finally {
      await page.emulateMedia({ colorScheme: "light" });
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });
});

describe("a slow or lying upload to the import route (a raw socket to the shared server)", () => {
  const ctx = useSharedApp("e2e-import-review-slow");

  /** Opens a POST of `.jsonl` with these headers; returns the socket and what it was answered. */
  function rawPost(headers: string[]) {
    const url = new URL(ctx.app.url);
    const socket = connect(Number(url.port), url.hostname);
    let answer = "";
    socket.on("data", (d) => {
      answer += d;
    });
    socket.on("error", () => {});
    const closed = new Promise<void>((r) => socket.once("close", () => r()));
    socket.write(
      [
        "POST /api/v1/banks/import HTTP/1.1",
        `Host: ${url.host}`,
        "Content-Type: application/x-ndjson",
        ...headers,
        "",
        "",
      ].join("\r\n"),
    );
    return { socket, closed, answer: () => answer };
  }

  it("a .jsonl trickled a byte at a time holds nothing others wait for; cut off, it imports nothing", async () => {
    const slow = rawPost(["Transfer-Encoding: chunked"]);
    const text = `${JSON.stringify({ version: 1, bank: bankOf("e2e-review-slow") })}\n${JSON.stringify({ fact: fact("f1", "Slow.") })}\n`;
    let sent = 0;
    const trickle = setInterval(() => {
      if (sent < text.length - 5) slow.socket.write(`1\r\n${text[sent++]}\r\n`);
    }, 20);
    try {
      await new Promise((r) => setTimeout(r, 500));
      // Meanwhile: health answers and a JSON bundle import goes through.
      const started = performance.now();
      expect((await fetch(`${ctx.app.url}/api/health`)).status).toBe(200);
      const res = await fetch(`${ctx.app.url}/api/v1/banks/import`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ version: 1, bank: bankOf("e2e-review-beside"), facts: [fact("f1", "Beside.")] }),
      });
      expect(res.status).toBe(201);
      expect(performance.now() - started).toBeLessThan(5_000);
    } finally {
      clearInterval(trickle);
    }
    slow.socket.destroy();
    await slow.closed;
    await new Promise((r) => setTimeout(r, 500));
    const ids = await bankIds(ctx.app.url);
    expect(ids).toContain("e2e-review-beside");
    expect(ids).not.toContain("e2e-review-slow");
  });

  it("a Content-Length that promises more than is sent imports nothing, whether the client waits or hangs up", async () => {
    const body = `${JSON.stringify({ version: 1, bank: bankOf("e2e-review-lies") })}\n${JSON.stringify({ fact: fact("f1", "Lies.") })}\n`;
    const lying = rawPost([`Content-Length: ${body.length + 1000}`]);
    lying.socket.write(body);
    await new Promise((r) => setTimeout(r, 500));
    expect(lying.answer()).toBe(""); // still waiting for the rest: nothing answered, nothing imported
    expect(await bankIds(ctx.app.url)).not.toContain("e2e-review-lies");
    lying.socket.end();
    await lying.closed;
    await new Promise((r) => setTimeout(r, 500));
    expect(await bankIds(ctx.app.url)).not.toContain("e2e-review-lies");
  });
});
