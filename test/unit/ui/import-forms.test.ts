/**
 * The import page's forms as the server renders them: what the Hindsight form says up front for
 * each HINDSIGHT_IMPORT_ORIGINS (none, only unusable entries, a list), before anyone submits.
 */
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createElement as h } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { ImportForms } from "@/components/memory/import-forms";

function render(origins: string[], ignored: string[] = []): string {
  return renderToStaticMarkup(
    h(
      QueryClientProvider,
      { client: new QueryClient() },
      h(ImportForms, { hindsightOrigins: origins, ignoredEntries: ignored, bundleMaxBytes: 50_000_000 }),
    ),
  );
}

/** The opening tag of the element with this test id. */
function tag(html: string, testId: string): string {
  const m = new RegExp(`<[a-z]+ [^>]*data-testid="${testId}"[^>]*>`).exec(html);
  if (!m) throw new Error(`no ${testId}`);
  return m[0];
}

const text = (html: string) =>
  html
    .replace(/<[^>]+>/g, "")
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");

describe("import forms", () => {
  it("with no origin allowed: says so, and the Hindsight form cannot be sent", () => {
    const html = render([]);
    expect(tag(html, "hindsight-origins")).toContain('data-allowed="none"');
    expect(text(html)).toContain("This server imports from no Hindsight server: HINDSIGHT_IMPORT_ORIGINS is not set.");
    expect(tag(html, "hindsight-import")).toMatch(/disabled=""/);
    expect(tag(html, "hindsight-url")).toMatch(/disabled=""/);
    expect(tag(html, "hindsight-key")).toMatch(/disabled=""/);
    // The bundle form is there and waits for a file.
    expect(tag(html, "bundle-import")).toMatch(/disabled=""/);
    expect(tag(html, "bundle-file")).toContain('accept=".json,.jsonl,application/json"');
    expect(text(html)).toContain("Up to 50 MB");
  });

  it("with only entries that name no origin: says the list has none usable and names them", () => {
    const html = render([], ["host:8888", "https://*.example.com"]);
    expect(text(html)).toContain("HINDSIGHT_IMPORT_ORIGINS lists no usable origin.");
    expect(text(html)).toContain(
      'Entries ignored (each must be scheme://host[:port]): "host:8888", "https://*.example.com".',
    );
    expect(tag(html, "hindsight-import")).toMatch(/disabled=""/);
  });

  it("with origins: lists them, prefills the one there is, and the key is a password field", () => {
    const one = render(["http://127.0.0.1:8888"]);
    expect(tag(one, "hindsight-origins")).toContain('data-allowed="http://127.0.0.1:8888"');
    expect(text(one)).toContain("This server imports only from http://127.0.0.1:8888 (HINDSIGHT_IMPORT_ORIGINS).");
    expect(tag(one, "hindsight-url")).toContain('value="http://127.0.0.1:8888"');
    expect(tag(one, "hindsight-url")).not.toMatch(/disabled=""/);
    expect(tag(one, "hindsight-key")).toContain('type="password"');
    const two = render(["https://a.example", "https://b.example"]);
    expect(text(two)).toContain("https://a.example, https://b.example");
    expect(tag(two, "hindsight-url")).toContain('value=""');
  });
});
