/**
 * Dependency direction (DESIGN.md): app → lib/server → (lib/reflect, db, lib/llm);
 * components → lib/query, lib/timeline. The engine imports only itself and zod.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "..", "..");

function sourceFiles(dir: string): string[] {
  const abs = join(root, dir);
  let out: string[] = [];
  let entries: import("node:fs").Dirent[] = [];
  try {
    entries = readdirSync(abs, { withFileTypes: true });
  } catch {
    return [];
  }
  for (const e of entries) {
    const rel = join(dir, e.name);
    if (e.isDirectory()) out = out.concat(sourceFiles(rel));
    else if (/\.(ts|tsx|mjs)$/.test(e.name)) out.push(rel);
  }
  return out;
}

/** Module specifiers of static imports, re-exports and dynamic imports. */
function importsOf(source: string): string[] {
  const specs: string[] = [];
  const re =
    /(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|import\s+['"]([^'"]+)['"]/g;
  for (const m of source.matchAll(re)) specs.push((m[1] ?? m[2] ?? m[3]) as string);
  return specs;
}

/** Resolves a specifier to a repo-relative path (for `@/` and relative imports) or the package name. */
function target(file: string, spec: string): string {
  if (spec.startsWith("@/")) return spec.slice(2);
  if (spec.startsWith(".")) return relative(root, resolve(root, dirname(file), spec));
  return spec;
}

function violations(dir: string, allowed: (target: string) => boolean): string[] {
  const bad: string[] = [];
  for (const file of sourceFiles(dir)) {
    for (const spec of importsOf(readFileSync(join(root, file), "utf8"))) {
      if (!allowed(target(file, spec))) bad.push(`${file} imports ${spec}`);
    }
  }
  return bad;
}

const under = (t: string, ...prefixes: string[]) => prefixes.some((p) => t === p || t.startsWith(`${p}/`));

describe("architecture", () => {
  it("the import scanner sees static, re-export, side-effect and dynamic imports", () => {
    const src = `import a from "next/link";\nexport { b } from '../db/x';\nimport "server-only";\nconst c = await import("openai");`;
    expect(importsOf(src)).toEqual(["next/link", "../db/x", "server-only", "openai"]);
  });

  it("lib/reflect imports only itself and zod", () => {
    expect(sourceFiles("lib/reflect").length).toBeGreaterThan(3);
    expect(violations("lib/reflect", (t) => t === "zod" || under(t, "lib/reflect"))).toEqual([]);
  });

  it("lib/timeline is a pure fold: no React, framework, database or server code", () => {
    // `diff` (jsdiff) is a pure algorithm: text-diff.ts builds on it.
    const pure = (t: string) => t === "zod" || t === "diff" || under(t, "lib/timeline", "lib/reflect");
    expect(violations("lib/timeline", pure)).toEqual([]);
  });

  it("lib/llm reaches no database, server, app or component code", () => {
    expect(violations("lib/llm", (t) => !under(t, "db", "lib/server", "app", "components", "lib/timeline"))).toEqual(
      [],
    );
  });

  it("db never imports app, components, the server layer or model clients", () => {
    expect(violations("db", (t) => !under(t, "app", "components", "lib/server", "lib/llm", "lib/cli"))).toEqual([]);
  });

  it("components never import db or lib/server", () => {
    expect(
      violations("components", (t) => !under(t, "db", "lib/server", "lib/llm", "@libsql/client", "drizzle-orm")),
    ).toEqual([]);
  });

  it("only lib/server and lib/cli compose db and models; app reaches them through lib/server", () => {
    expect(violations("app", (t) => !under(t, "db", "lib/llm", "@libsql/client", "drizzle-orm", "openai"))).toEqual([]);
  });
});
