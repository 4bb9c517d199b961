/** Wrong tokens: five free tries, then a doubling wait per client, capped; a right token clears it. */
import { afterEach, describe, expect, it } from "vitest";
import {
  clientKey,
  FREE_FAILURES,
  lockedFor,
  MAX_LOCK_MS,
  PEER_HEADER,
  recordFailure,
  recordSuccess,
  resetThrottle,
} from "@/lib/server/http/auth-throttle";

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

  it("strangers' wrong tokens never lock out another client (no shared budget to exhaust)", () => {
    const t = 3_000_000;
    for (let i = 0; i <= 200; i++) recordFailure(`10.1.${i % 250}.1`, t);
    expect(lockedFor("10.9.9.9", t)).toBe(0);
    // Its own wrong guesses still count against it.
    for (let i = 0; i <= FREE_FAILURES; i++) recordFailure("192.168.1.20", t);
    expect(lockedFor("192.168.1.20", t)).toBeGreaterThan(0);
  });
});

describe("which client a request is (issue #28 item 3)", () => {
  const h = (peer: string | null, forwarded?: string) =>
    new Headers({
      ...(peer !== null ? { [PEER_HEADER]: peer } : {}),
      ...(forwarded ? { "x-forwarded-for": forwarded } : {}),
    });

  it("is the socket address; X-Forwarded-For is ignored without a trusted proxy (the default)", () => {
    expect(clientKey(h("10.0.0.66", "10.0.0.7"), {})).toBe("10.0.0.66");
    expect(clientKey(h("::ffff:127.0.0.1", "10.0.0.7"), {})).toBe("127.0.0.1");
    expect(clientKey(h(null, "10.0.0.7"), {})).toBe("unknown");
  });

  it("behind INSPECTOR_TRUSTED_PROXY is the address the proxy appended, never one the client prepended", () => {
    const env = { INSPECTOR_TRUSTED_PROXY: "127.0.0.1, 10.0.0.2" };
    expect(clientKey(h("127.0.0.1", "203.0.113.9"), env)).toBe("203.0.113.9");
    // "victim, attacker": the client wrote the first, the proxy the last.
    expect(clientKey(h("127.0.0.1", "10.0.0.7, 203.0.113.9"), env)).toBe("203.0.113.9");
    // Two trusted proxies in a row are skipped.
    expect(clientKey(h("127.0.0.1", "203.0.113.9, 10.0.0.2"), env)).toBe("203.0.113.9");
    // A direct client (not the proxy) is its socket address whatever it forwards.
    expect(clientKey(h("198.51.100.4", "10.0.0.7"), env)).toBe("198.51.100.4");
    expect(clientKey(h("127.0.0.1"), env)).toBe("127.0.0.1");
  });
});
