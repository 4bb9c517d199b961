/** The import page's choice of body type for a file and its refusal by size (lib/client/import.ts). */
import { describe, expect, it } from "vitest";
import { bundleContentType, checkBundleFile } from "@/lib/client/import";

describe("a bundle file on the import page", () => {
  it("sends .jsonl (any case) as JSON lines and everything else as one JSON document", () => {
    expect(bundleContentType("bank.jsonl")).toBe("application/x-ndjson");
    expect(bundleContentType("BANK.JSONL")).toBe("application/x-ndjson");
    expect(bundleContentType("bank.json")).toBe("application/json");
    expect(bundleContentType("bank.jsonl.json")).toBe("application/json");
    expect(bundleContentType("bank")).toBe("application/json");
  });

  it("refuses an empty file and one past the limit before sending, saying nothing was imported", () => {
    expect(checkBundleFile({ name: "a.json", size: 10 }, 100)).toBeNull();
    expect(checkBundleFile({ name: "a.json", size: 100 }, 100)).toBeNull();
    const big = checkBundleFile({ name: "big.jsonl", size: 101 }, 100);
    expect(big?.code).toBe("body_too_large");
    expect(big?.message).toMatch(/big\.jsonl is larger than 100 bytes.*npm run cli -- import.*nothing was imported/);
    const empty = checkBundleFile({ name: "e.json", size: 0 }, 100);
    expect(empty?.message).toBe("e.json is empty; nothing was imported.");
  });
});
