/** Wrong tokens: five free tries, then a doubling wait per client, capped; a right token clears it. */
import { afterEach, describe, expect, it } from "vitest";
import {
  FREE_FAILURES,
  GLOBAL_FREE_FAILURES,
  lockedFor,
  MAX_LOCK_MS,
  recordFailure,
  recordSuccess,
  resetThrottle,
} from "@/lib/server/auth-throttle";

afterEach(resetThrottle);

describe("auth throttle", () => {
  it("locks a client out after the free tries, doubling the wait, and leaves other clients alone", () => {
    const t = 1_000_000;
    for (let i = 0; i < FREE_FAILURES; i++) recordFailure("a", t);
    expect(lockedFor("a", t)).toBe(0);
    recordFailure("a", t);
    expect(lockedFor("a", t)).toBe(1000);
    recordFailure("a", t);
    expect(lockedFor("a", t)).toBe(2000);
    for (let i = 0; i < 20; i++) recordFailure("a", t);
    expect(lockedFor("a", t)).toBe(MAX_LOCK_MS);
    expect(lockedFor("b", t)).toBe(0);
    expect(lockedFor("a", t + MAX_LOCK_MS)).toBe(0);
  });

  it("a right token clears the record", () => {
    for (let i = 0; i < FREE_FAILURES + 3; i++) recordFailure("a");
    expect(lockedFor("a")).toBeGreaterThan(0);
    recordSuccess("a");
    expect(lockedFor("a")).toBe(0);
  });

  it("a client rotating X-Forwarded-For still meets the shared budget", () => {
    const t = 2_000_000;
    for (let i = 0; i < GLOBAL_FREE_FAILURES; i++) recordFailure(`10.0.${i}.1`, t);
    expect(lockedFor("10.9.9.9", t)).toBe(0);
    recordFailure("10.9.9.8", t);
    expect(lockedFor("10.9.9.9", t)).toBeGreaterThan(0);
  });

  it("strangers' wrong tokens do not lock out a client that signed in with the right one", () => {
    const t = 3_000_000;
    recordSuccess("192.168.1.20", t);
    for (let i = 0; i <= GLOBAL_FREE_FAILURES; i++) recordFailure(`10.1.${i}.1`, t);
    expect(lockedFor("10.9.9.9", t)).toBeGreaterThan(0);
    expect(lockedFor("192.168.1.20", t)).toBe(0);
    // Its own wrong guesses still count against it.
    for (let i = 0; i <= FREE_FAILURES; i++) recordFailure("192.168.1.20", t);
    expect(lockedFor("192.168.1.20", t)).toBeGreaterThan(0);
  });
});
