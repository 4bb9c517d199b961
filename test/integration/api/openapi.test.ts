/**
 * The OpenAPI document is complete and well-formed: every route file under app/api/v1 (and every
 * method it exports) is documented, every operation has responses, and every $ref resolves.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { describe, expect, it } from "vitest";
import { GET } from "@/app/api/v1/openapi.json/route";
import { buildOpenApiDocument } from "@/lib/server/http/api/openapi";

const V1 = join(process.cwd(), "app", "api", "v1");
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

/** `app/api/v1/banks/[bank]/reflect/route.ts` → `/banks/{bank}/reflect`, with its exported methods. */
function routesOnDisk(dir = V1): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    // `[...rest]` is the JSON 404 for paths no route declares, not an operation.
    if (entry.isDirectory() && entry.name.startsWith("[...")) continue;
    if (entry.isDirectory()) out.push(...routesOnDisk(path));
    else if (entry.name === "route.ts") {
      const url = `/${relative(V1, dir).split(sep).join("/")}`.replace(/\[([^\]]+)\]/g, "{$1}");
      const source = readFileSync(path, "utf8");
      for (const m of METHODS) {
        if (new RegExp(`export (const|async function|function) ${m}\\b`).test(source)) out.push(`${m} ${url}`);
      }
    }
  }
  return out.sort();
}

type Doc = ReturnType<typeof buildOpenApiDocument>;
type Operation = { responses?: Record<string, unknown>; parameters?: { name: string; in: string }[] };

function collectRefs(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) collectRefs(v, out);
  else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      if (k === "$ref" && typeof v === "string") out.push(v);
      else collectRefs(v, out);
    }
  }
  return out;
}

function resolvePointer(doc: unknown, ref: string): unknown {
  if (!ref.startsWith("#/")) return undefined;
  return ref
    .slice(2)
    .split("/")
    .reduce<unknown>(
      (node, key) => (node && typeof node === "object" ? (node as Record<string, unknown>)[key] : undefined),
      doc,
    );
}

describe("OpenAPI document", () => {
  const doc: Doc = buildOpenApiDocument();
  const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({ path, method, op: op as Operation })),
  );

  it("is OpenAPI 3.1.0 with info and the /api/v1 server", () => {
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.title).toBeTruthy();
    expect(doc.servers).toEqual([{ url: "/api/v1" }]);
  });

  it("gives the license a name and exactly one of an SPDX identifier or a URL (OAS 3.1 License Object)", () => {
    const license = doc.info.license as { name: string; identifier?: string; url?: string };
    expect(license.name).toBeTruthy();
    expect([license.identifier, license.url].filter(Boolean)).toHaveLength(1);
    // An SPDX license expression: a listed id or a LicenseRef-.
    if (license.identifier) expect(license.identifier).toMatch(/^(LicenseRef-[A-Za-z0-9.-]+|[A-Za-z0-9.+-]+)$/);
  });

  it("documents exactly the routes (path and method) that exist under app/api/v1", () => {
    const documented = operations.map(({ path, method }) => `${method.toUpperCase()} ${path}`).sort();
    const onDisk = routesOnDisk();
    expect(onDisk.length).toBeGreaterThan(15);
    expect(documented).toEqual(onDisk);
  });

  it("gives every operation a unique id, a success response and its declared path parameters", () => {
    const ids = operations.map(({ op }) => (op as { operationId: string }).operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { path, method, op } of operations) {
      const statuses = Object.keys(op.responses ?? {});
      expect(
        statuses.some((s) => s.startsWith("2")),
        `${method} ${path} has a 2xx response`,
      ).toBe(true);
      const inPath = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort();
      const declared = (op.parameters ?? [])
        .filter((p) => p.in === "path")
        .map((p) => p.name)
        .sort();
      expect(declared, `${method} ${path} path parameters`).toEqual(inPath);
    }
  });

  it("resolves every $ref inside the document", () => {
    const refs = collectRefs(doc);
    expect(refs.length).toBeGreaterThan(20);
    const broken = refs.filter((r) => resolvePointer(doc, r) === undefined);
    expect(broken).toEqual([]);
  });

  it("describes request bodies from the zod schemas (required fields, limits, enums)", () => {
    const reflect = doc.components.schemas.ReflectBody as {
      required: string[];
      properties: Record<string, { maxLength?: number; enum?: string[]; deprecated?: boolean }>;
    };
    expect(reflect.required).toEqual(["question"]);
    expect(reflect.properties.question?.maxLength).toBe(4000);
    expect(reflect.properties.budget?.enum).toEqual(["low", "mid", "high"]);
    expect(reflect.properties.responseSchema?.deprecated).toBe(true);
  });

  it("is served at /api/v1/openapi.json", async () => {
    const res = GET();
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(JSON.parse(JSON.stringify(doc)));
  });
});
