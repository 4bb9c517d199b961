import { describe, expect, it } from "vitest";
import { isAppError } from "@/lib/contracts/errors";
import { validateBundle } from "@/lib/server/services/bundle-io";

function bundle(overrides: Record<string, unknown> = {}) {
  return {
    version: 1,
    bank: { id: "acme", name: "Acme", permittedTeams: ["core"] },
    facts: [
      { id: "f1", text: "one", kind: "world", scope: "personal", recordedAt: "2025-01-01T00:00:00Z" },
      { id: "f2", text: "two", kind: "experience", scope: "team:core", recordedAt: "2025-01-02T00:00:00Z" },
    ],
    observations: [
      { id: "o1", text: "obs", scope: "personal", sourceFactIds: ["f1"], updatedAt: "2025-01-03T00:00:00Z" },
    ],
    ...overrides,
  };
}

/** The refused bundle's issues as `{path, message}` pairs, from the error's fieldErrors. */
function issuesOf(json: unknown) {
  try {
    validateBundle(json);
  } catch (error) {
    if (!isAppError(error, "invalid_bundle")) throw error;
    return Object.entries(error.details.fieldErrors).flatMap(([path, messages]) =>
      messages.map((message) => ({ path, message })),
    );
  }
  throw new Error("bundle was accepted");
}

describe("bundle validation", () => {
  it("accepts a valid bundle and fills defaults", () => {
    const parsed = validateBundle(bundle());
    expect(parsed.facts[0]?.tags).toEqual([]);
    expect(parsed.mentalModels).toEqual([]);
  });

  it("names the path of a wrong type", () => {
    const b = bundle();
    (b.facts[1] as Record<string, unknown>).kind = 3;
    expect(issuesOf(b).map((i) => i.path)).toEqual(["facts[1].kind"]);
  });

  it("names the path of a missing field", () => {
    const b = bundle();
    delete (b.observations[0] as Record<string, unknown>).updatedAt;
    expect(issuesOf(b)).toEqual([{ path: "observations[0].updatedAt", message: expect.any(String) }]);
  });

  it("names a duplicate id and where it first appeared", () => {
    const b = bundle();
    (b.facts[1] as Record<string, unknown>).id = "f1";
    expect(issuesOf(b)).toEqual([{ path: "facts[1].id", message: 'duplicate id "f1" (first at facts[0])' }]);
  });

  it("rejects a team scope with no id", () => {
    const b = bundle();
    (b.facts[1] as Record<string, unknown>).scope = "team:";
    expect(issuesOf(b)).toEqual([
      { path: "facts[1].scope", message: 'scope must be "personal" or "team:<id>" (got "team:")' },
    ]);
  });

  it("rejects a source fact id that does not exist", () => {
    const b = bundle();
    b.observations[0]?.sourceFactIds.push("f9");
    expect(issuesOf(b)).toEqual([{ path: "observations[0].sourceFactIds[1]", message: 'unknown fact id "f9"' }]);
  });

  it("puts every issue in the error message", () => {
    const b = bundle({ version: 2 });
    expect(() => validateBundle(b)).toThrow(/version:/);
  });
});
