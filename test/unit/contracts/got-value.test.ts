/** `(got …)` in an invalid-input message: a short quote of the refused value, whatever its shape. */
import { describe, expect, it } from "vitest";
import { gotValue } from "@/lib/contracts/errors";

describe("gotValue", () => {
  it("quotes a value a million levels deep without recursing through it (was: Maximum call stack size exceeded)", () => {
    const n = 1_000_000;
    const deep = JSON.parse(`[${"[".repeat(n)}${"]".repeat(n)}]`);
    const got = gotValue(deep, [0]);
    expect(got).toMatch(/^ \(got \[\[\[/);
    expect(got.length).toBeLessThan(100);
    const obj = JSON.parse(`{"q":${'{"a":'.repeat(n)}1${"}".repeat(n)}}`);
    expect(gotValue(obj, ["q"])).toMatch(/^ \(got \{"a":\{"a":/);
  });

  it("reads only what it quotes of a huge value, and still quotes primitives and small values exactly", () => {
    const huge = Array.from({ length: 2_000_000 }, (_, i) => ({ i }));
    expect(gotValue({ x: huge }, ["x"])).toMatch(/^ \(got \[\{"i":0\},\{"i":1\},.*…\)$/);
    expect(gotValue({ x: "short" }, ["x"])).toBe(' (got "short")');
    expect(gotValue({ x: 7 }, ["x"])).toBe(" (got 7)");
    expect(gotValue({ x: [1, { a: null }] }, ["x"])).toBe(' (got [1,{"a":null}])');
    expect(gotValue({ x: {} }, ["x"])).toBe(" (got {})");
    expect(gotValue({}, ["x"])).toBe(" (missing)");
    expect(gotValue({ x: "y".repeat(100) }, ["x"])).toBe(` (got "${"y".repeat(59)}…)`);
  });
});
