/**
 * The project's docs stand on their own: every relative link in README.md, SECURITY.md and docs/
 * names a file of the repository (and, with `#anchor`, a heading of that file), and neither the
 * docs nor the code point at the specification outside the repository.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = resolve(__dirname, "../..");
const DOCS = ["README.md", "SECURITY.md", ...readdirSync(join(ROOT, "docs")).map((f) => `docs/${f}`)].filter((f) =>
  f.endsWith(".md"),
);

/** GitHub's heading anchors: lowercase, punctuation dropped, spaces to dashes. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[`*_]/g, "")
    .replace(/[^\p{L}\p{N} -]/gu, "")
    .replace(/ /g, "-");
}

function anchorsIn(file: string): Set<string> {
  const text = readFileSync(join(ROOT, file), "utf8");
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchorOf(m[1] ?? "")));
}

function linksIn(file: string): { target: string; anchor: string | null }[] {
  const text = readFileSync(join(ROOT, file), "utf8").replace(/```[\s\S]*?```/g, "");
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1] ?? "")
    .filter((href) => !/^[a-z]+:/i.test(href))
    .map((href) => {
      const [path, anchor] = href.split("#");
      return { target: path ? relative(ROOT, resolve(ROOT, dirname(file), path)) : file, anchor: anchor ?? null };
    });
}

function filesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = `${dir}/${name}`;
    if (statSync(join(ROOT, path)).isDirectory()) return name === "node_modules" ? [] : filesUnder(path);
    return /\.(ts|tsx|mjs|md)$/.test(name) ? [path] : [];
  });
}

describe("the docs", () => {
  it("anchors follow GitHub's rule", () => {
    expect(anchorOf("Forced retrieval and the freshness short-circuit")).toBe(
      "forced-retrieval-and-the-freshness-short-circuit",
    );
    expect(anchorOf("Traces (OpenTelemetry)")).toBe("traces-opentelemetry");
    expect(anchorOf("HTTP API and MCP")).toBe("http-api-and-mcp");
  });

  it.each(DOCS)("%s links only to files and headings that exist", (file) => {
    const broken = linksIn(file).filter(({ target, anchor }) => {
      let exists = false;
      try {
        exists = statSync(join(ROOT, target)).isFile() || statSync(join(ROOT, target)).isDirectory();
      } catch {
        return true;
      }
      return !exists || (anchor !== null && target.endsWith(".md") && !anchorsIn(target).has(anchor));
    });
    expect(broken).toEqual([]);
  });

  it("code comments that cite the rules point into docs/ and exist", () => {
    const cited = new Map<string, string>();
    for (const file of ["lib", "db", "app", "components", "test", "scripts"].flatMap(filesUnder)) {
      const text = readFileSync(join(ROOT, file), "utf8");
      expect(text, file).not.toMatch(/shared\/SPEC|\bSPEC §/);
      for (const m of text.matchAll(/docs\/([a-z-]+\.md)(?:#([a-z0-9-]+))?/g)) cited.set(m[0], file);
    }
    expect(cited.size).toBeGreaterThan(10);
    const broken = [...cited.keys()].filter((ref) => {
      const [path, anchor] = ref.split("#");
      try {
        return anchor !== undefined && !anchorsIn(path ?? "").has(anchor);
      } catch {
        return true;
      }
    });
    expect(broken).toEqual([]);
  });
});
