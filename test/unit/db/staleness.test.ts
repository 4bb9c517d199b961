import { describe, expect, it } from "vitest";
import { decideStaleness } from "@/db/queries/staleness";

const base = { staleOverride: null, refreshedAt: "2025-03-01T00:00:00.000Z", newerInScope: 0, content: "Summary." };

describe("mental-model staleness", () => {
  it("a manual override decides, whatever the newer memories", () => {
    expect(decideStaleness({ ...base, staleOverride: "fresh", newerInScope: 12 })).toEqual({
      isStale: false,
      reason: "manual override",
      usable: true,
    });
    expect(decideStaleness({ ...base, staleOverride: "stale", refreshedAt: null })).toMatchObject({
      isStale: true,
      reason: "manual override",
    });
  });

  it("a model never refreshed is stale", () => {
    expect(decideStaleness({ ...base, refreshedAt: null })).toMatchObject({ isStale: true, reason: "never refreshed" });
  });

  it("newer memories in scope make it stale and the reason names the count", () => {
    expect(decideStaleness({ ...base, newerInScope: 3 })).toMatchObject({
      isStale: true,
      reason: "3 newer memories in scope",
    });
    expect(decideStaleness({ ...base, newerInScope: 1 }).reason).toBe("1 newer memory in scope");
    expect(decideStaleness(base)).toMatchObject({ isStale: false, reason: "no newer memories in scope" });
    expect(decideStaleness({ ...base, newerInScope: 100 }).reason).toBe("100 newer memories in scope");
    expect(decideStaleness({ ...base, newerInScope: 101 }).reason).toBe("more than 100 newer memories in scope");
  });

  it.each(["", "   \n", "Generating content...", "TBD", "pending…", "Placeholder"])(
    "content %j is unusable even when fresh",
    (content) => {
      expect(decideStaleness({ ...base, content })).toMatchObject({ isStale: false, usable: false });
    },
  );

  it("real content that merely mentions a placeholder word is usable", () => {
    expect(decideStaleness({ ...base, content: "Pending: the billing launch." }).usable).toBe(true);
  });
});
