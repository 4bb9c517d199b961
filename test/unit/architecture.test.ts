/**
 * Dependency direction (docs/architecture.md): doors (app routes and actions, lib/server/http, lib/cli)
 * → lib/server/services → lib/server/runtime → (lib/reflect, db, lib/llm, lib/contracts);
 * components → lib/client, lib/timeline, lib/text, lib/contracts. The engine imports only itself and zod.
 * Shapes that cross a boundary are declared once, in lib/contracts (or the engine's lib/reflect).
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

/** Module specifiers an import statement takes types from (`import type …`, or `{ type X }` inside braces). */
function typeImportsOf(source: string): string[] {
  const specs: string[] = [];
  const re = /import\s+(type\s+)?(\{[^}]*\}|[\w*\s,]+?)\s*from\s*['"]([^'"]+)['"]/g;
  for (const m of source.matchAll(re)) {
    const [, typeOnly, names, spec] = m;
    if (typeOnly || /(^|[{,\s])type\s+\w/.test(names ?? "")) specs.push(spec as string);
  }
  return specs;
}

function typeViolations(dir: string, allowed: (target: string) => boolean): string[] {
  const bad: string[] = [];
  for (const file of sourceFiles(dir)) {
    for (const spec of typeImportsOf(readFileSync(join(root, file), "utf8"))) {
      if (!allowed(target(file, spec))) bad.push(`${file} imports types from ${spec}`);
    }
  }
  return bad;
}

/** zod schema builders: a call to one of these declares a schema. */
const SCHEMA_BUILDER =
  /\bz\.(object|strictObject|looseObject|string|number|boolean|array|tuple|enum|literal|union|discriminatedUnion|intersection|record|unknown|any|custom|coerce|iso|preprocess|lazy)\s*\(/;

/**
 * Files outside lib/contracts and lib/reflect that may declare schemas because the shape never
 * leaves the file's own process boundary: environment settings and command-line arguments.
 */
const LOCAL_SCHEMAS: Record<string, string> = {
  "lib/llm/config.ts": "parses model settings from the environment",
  "lib/llm/embeddings.ts": "parses embedding settings from the environment",
  "lib/cli/args.ts": "parses the reflect/import/export command lines (flag names, not a contract)",
  "lib/cli/runs.ts": "parses the `runs export` command line",
  "lib/cli/experiments.ts": "parses the `suite` and `experiment run` command lines",
};

/** Doors: they translate a transport's input and output and call services (docs/architecture.md). */
const DOORS = ["app/api", "app/actions", "lib/server/http", "lib/cli"];

/**
 * Doors that take an admission slot themselves, with the reason. Everything else admits in a
 * service (startRun, recallTier), so every door that starts the same work waits in the same line.
 */
const ADMITTING_DOORS: Record<string, string> = {
  "lib/server/http/otlp-receiver.ts":
    "OTLP ingest's work is decoding and folding the request's own body: the slot bounds that work, which happens in the receiver",
};

/** Imports the runtime makes upward, with the reason. */
const RUNTIME_EXCEPTIONS: Record<string, string> = {
  "lib/server/services/bundle-io":
    "the app's database handle seeds the demo bank on first open by importing its bundle",
  "lib/server/services/retention": "the app's database handle starts the run-retention schedule once per process",
};

function schemaDeclarations(dirs: string[]): string[] {
  const out: string[] = [];
  for (const file of dirs.flatMap((d) => (d.endsWith(".ts") ? [d] : sourceFiles(d)))) {
    if (under(file, "lib/contracts", "lib/reflect") || file in LOCAL_SCHEMAS) continue;
    readFileSync(join(root, file), "utf8")
      .split("\n")
      .forEach((line, i) => {
        if (SCHEMA_BUILDER.test(line)) out.push(`${file}:${i + 1}: ${line.trim()}`);
      });
  }
  return out;
}

describe("architecture", () => {
  it("the import scanner sees static, re-export, side-effect and dynamic imports", () => {
    const src = `import a from "next/link";\nexport { b } from '../db/x';\nimport "server-only";\nconst c = await import("openai");`;
    expect(importsOf(src)).toEqual(["next/link", "../db/x", "server-only", "openai"]);
  });

  it("lib/reflect imports only itself and zod", () => {
    expect(sourceFiles("lib/reflect").length).toBeGreaterThan(3);
    expect(violations("lib/reflect", (t) => t === "zod" || under(t, "lib/reflect"))).toEqual([]);
  });

  it("lib/experiments is pure: evaluation and comparison read contracts and the engine's domain only", () => {
    expect(sourceFiles("lib/experiments").length).toBeGreaterThan(2);
    const pure = (t: string) =>
      t === "zod" ||
      under(
        t,
        "lib/experiments",
        "lib/contracts",
        "lib/reflect/domain",
        "lib/reflect/porter",
        "lib/reflect/dates",
        "lib/reflect/probe",
      );
    expect(violations("lib/experiments", pure)).toEqual([]);
  });

  it("lib/timeline is a pure fold: no React, framework, database or server code", () => {
    // `diff` (jsdiff) is a pure algorithm: text-diff.ts builds on it.
    const pure = (t: string) => t === "zod" || t === "diff" || under(t, "lib/timeline", "lib/text", "lib/reflect");
    expect(violations("lib/timeline", pure)).toEqual([]);
  });

  it("lib/text is pure text helpers (diff, version changes, plural): no timeline, React, framework or server code", () => {
    expect(sourceFiles("lib/text").length).toBeGreaterThan(2);
    const pure = (t: string) => t === "diff" || under(t, "lib/text", "lib/reflect/domain");
    expect(violations("lib/text", pure)).toEqual([]);
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

  it("lib/server never imports lib/client (client-side links, keys and fetchers)", () => {
    expect(violations("lib/server", (t) => !under(t, "lib/client"))).toEqual([]);
  });

  it("lib/contracts depends only on zod, the engine's domain and the pure text helpers' types", () => {
    expect(sourceFiles("lib/contracts").length).toBeGreaterThan(5);
    expect(
      violations("lib/contracts", (t) => t === "zod" || under(t, "lib/contracts", "lib/reflect", "lib/text")),
    ).toEqual([]);
  });

  it("the type-import scanner sees `import type` and inline `type` specifiers, not value imports", () => {
    const src = `import type { A } from "@/x";\nimport { type B, c } from "@/y";\nimport { d } from "@/z";\nimport type E from "@/w";`;
    expect(typeImportsOf(src)).toEqual(["@/x", "@/y", "@/w"]);
  });

  it("components take app shapes from lib/contracts: no types from lib/server, lib/client, db or app", () => {
    // lib/timeline (the folds' rows) and lib/reflect (the engine's domain) are contracts of their own.
    // lib/client/event-stream is a browser helper: its connection state is not a shape that crosses the wire.
    // lib/rerun is the re-run drawer's own state (a pure reducer), likewise.
    const appShape = (t: string) =>
      under(t, "lib", "db", "app") &&
      !under(t, "lib/contracts", "lib/timeline", "lib/text", "lib/reflect", "lib/client/event-stream", "lib/rerun");
    expect(typeViolations("components", (t) => !appShape(t))).toEqual([]);
  });

  it("only lib/contracts and lib/reflect declare zod schemas (a short list of local parsers excepted)", () => {
    expect(SCHEMA_BUILDER.test("const X = z.object({ a: z.string() });")).toBe(true);
    expect(SCHEMA_BUILDER.test("type X = z.infer<typeof Y>; z.toJSONSchema(s);")).toBe(false);
    for (const file of Object.keys(LOCAL_SCHEMAS)) {
      expect(SCHEMA_BUILDER.test(readFileSync(join(root, file), "utf8")), `${file} still needs its exception`).toBe(
        true,
      );
    }
    expect(schemaDeclarations(["app", "components", "lib", "db", "proxy.ts"])).toEqual([]);
  });

  it("doors (routes, server actions, the HTTP edge with its API handlers and MCP, the CLI) reach services, never db/", () => {
    // The one thing a door takes from db/ is the handle's type (`import type { Db }`), to pass it on.
    const typeOnlyHandle = (file: string, spec: string) =>
      target(file, spec) === "db/client" &&
      new RegExp(`import\\s+type\\s*\\{[^}]*\\}\\s*from\\s*['"]${spec}['"]`).test(
        readFileSync(join(root, file), "utf8"),
      );
    const bad: string[] = [];
    for (const dir of DOORS) {
      expect(sourceFiles(dir).length, `${dir} has files`).toBeGreaterThan(0);
      for (const file of sourceFiles(dir)) {
        for (const spec of importsOf(readFileSync(join(root, file), "utf8"))) {
          if (under(target(file, spec), "db") && !typeOnlyHandle(file, spec)) bad.push(`${file} imports ${spec}`);
        }
      }
    }
    expect(bad).toEqual([]);
  });

  it("services never import a door (app, the HTTP edge, the CLI)", () => {
    expect(sourceFiles("lib/server/services").length).toBeGreaterThan(10);
    expect(violations("lib/server/services", (t) => !under(t, "app", "lib/server/http", "lib/cli"))).toEqual([]);
    // The runtime (db handle, model, run owner, admission) is below the services: it imports no service or door.
    const runtimeMay = (t: string) => !under(t, "app", "lib/server/services", "lib/cli", "lib/server/http");
    expect(violations("lib/server/runtime", (t) => runtimeMay(t) || RUNTIME_EXCEPTIONS[t] !== undefined)).toEqual([]);
    for (const t of Object.keys(RUNTIME_EXCEPTIONS)) {
      expect(violations("lib/server/runtime", (x) => x !== t).length, `${t} still needs its exception`).toBeGreaterThan(
        0,
      );
    }
  });

  it("admission is taken by the service that does the work (a run, a recall), not by a door", () => {
    const admits: string[] = [];
    for (const file of ["app", "lib"].flatMap(sourceFiles)) {
      if (under(file, "lib/server/services", "lib/server/runtime") || file in ADMITTING_DOORS) continue;
      if (/\badmit\(/.test(readFileSync(join(root, file), "utf8"))) admits.push(file);
    }
    expect(admits).toEqual([]);
    for (const file of Object.keys(ADMITTING_DOORS)) {
      expect(/\badmit\(/.test(readFileSync(join(root, file), "utf8")), `${file} still needs its exception`).toBe(true);
    }
    // Every service that starts a run or a recall takes its slot itself.
    expect(readFileSync(join(root, "lib/server/services/runs.ts"), "utf8")).toMatch(/await admit\("reflect"/);
    expect(readFileSync(join(root, "lib/server/services/recall.ts"), "utf8")).toMatch(/await admit\("recall"/);
    expect(readFileSync(join(root, "lib/server/services/hindsight-import.ts"), "utf8")).toMatch(
      /await admit\("ingest"/,
    );
    // A JSON bundle import too: a whole parsed bank in memory while it is validated and written.
    expect(readFileSync(join(root, "lib/server/services/banks.ts"), "utf8")).toMatch(/await admit\("ingest"/);
  });

  it("the scanner for doors sees a value import of db/ and lets the handle's type through", () => {
    expect(importsOf(`import { getRun } from "@/db/queries/runs";`).map((s) => target("app/x.ts", s))).toEqual([
      "db/queries/runs",
    ]);
  });

  it("only lib/server and lib/cli compose db and models; app reaches them through lib/server", () => {
    expect(violations("app", (t) => !under(t, "db", "lib/llm", "@libsql/client", "drizzle-orm", "openai"))).toEqual([]);
  });
});

/**
 * Buttons and form controls come from the UI kit (components/ui): Button, Field, Input, Textarea,
 * Select, Check. A raw element outside the kit needs an entry here with its reason; an entry whose
 * element is gone fails, so the list only shrinks.
 */
const RAW_CONTROL = /<(button|input|textarea|select)\b[^>]*?>/g;
const RAW_CONTROL_EXCEPTIONS: Record<string, { element: RegExp; reason: string }> = {
  "app/login/page.tsx": {
    element: /<input type="hidden"/,
    reason: "a hidden form value (where to go after signing in): not a control anyone sees or operates",
  },
};

function rawControls(dirs: string[]): string[] {
  const found: string[] = [];
  for (const dir of dirs) {
    for (const file of sourceFiles(dir)) {
      if (!file.endsWith(".tsx") || under(file, "components/ui")) continue;
      const source = readFileSync(join(root, file), "utf8");
      for (const m of source.matchAll(RAW_CONTROL)) {
        if (RAW_CONTROL_EXCEPTIONS[file]?.element.test(m[0])) continue;
        const line = source.slice(0, m.index).split("\n").length;
        found.push(`${file}:${line} <${m[1]}>`);
      }
    }
  }
  return found;
}

describe("UI kit", () => {
  it("lib/rerun (the re-run drawer's state) is pure: contracts and the engine's domain only, no React", () => {
    expect(sourceFiles("lib/rerun").length).toBeGreaterThan(0);
    expect(violations("lib/rerun", (t) => under(t, "lib/contracts", "lib/reflect/domain", "lib/rerun"))).toEqual([]);
  });

  it("the scanner finds raw buttons and fields and passes the kit's components", () => {
    const src = `<Button>a</Button><button type="button">b</button><Input /><input\n  value={x} /><Select><textarea /><select>`;
    expect([...src.matchAll(RAW_CONTROL)].map((m) => m[1])).toEqual(["button", "input", "textarea", "select"]);
  });

  it("components and app pages use components/ui for buttons and fields (named exceptions only)", () => {
    expect(rawControls(["components", "app"])).toEqual([]);
  });

  it("every exception still names an element that is there", () => {
    for (const [file, { element }] of Object.entries(RAW_CONTROL_EXCEPTIONS)) {
      expect(element.test(readFileSync(join(root, file), "utf8")), `${file} no longer needs its exception`).toBe(true);
    }
  });

  it("the field class string lives in the kit: no form control's border-and-padding classes outside it", () => {
    const FIELD_CLASSES = /rounded border border-slate-300 bg-white px-(1\.5|2) py-(1|1\.5) text-(\[13px\]|xs)/;
    const outside = ["components", "app"]
      .flatMap((d) => sourceFiles(d))
      .filter((f) => !under(f, "components/ui") && FIELD_CLASSES.test(readFileSync(join(root, f), "utf8")));
    expect(outside).toEqual([]);
  });

  it("text sizes of 11 and 12 px are the theme's tokens (text-2xs, text-xs), not literals", () => {
    const literal = /text-\[1[12]px\]/;
    const files = ["components", "app"].flatMap((d) => sourceFiles(d));
    expect(files.filter((f) => literal.test(readFileSync(join(root, f), "utf8")))).toEqual([]);
    const css = readFileSync(join(root, "app/globals.css"), "utf8");
    expect(css).toMatch(/--text-2xs:\s*11px/);
    expect(css).toMatch(/--text-xs:\s*12px/);
  });
});
