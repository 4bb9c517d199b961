/** The import page's choice of body type for a file and its refusal by size (lib/client/import.ts). */
import { describe, expect, it } from "vitest";
import { bundleContentType, bundleContentTypeOf, checkBundleFile } from "@/lib/client/import";

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

  it("tells a .json that is JSON lines, and a .jsonl that is one JSON document, by their first bytes", () => {
    const header = JSON.stringify({ version: 1, bank: { id: "b", name: "B", permittedTeams: [] } });
    const factLine = JSON.stringify({ fact: { id: "f1" } });
    const doc = { version: 1, bank: { id: "b", name: "B", permittedTeams: [] }, facts: [] };
    const lines = `${header}\r\n${factLine}\r\n`;
    // JSON lines named .json (with a byte-order mark and CRLF too): sent as JSON lines.
    expect(bundleContentTypeOf("bank.json", lines, true)).toBe("application/x-ndjson");
    expect(bundleContentTypeOf("bank.json", `\uFEFF${lines}`, false)).toBe("application/x-ndjson");
    // One JSON document named .jsonl: pretty-printed, or on one line read whole.
    expect(bundleContentTypeOf("bank.jsonl", JSON.stringify(doc, null, 2), true)).toBe("application/json");
    expect(bundleContentTypeOf("bank.jsonl", `${JSON.stringify(doc)}\n`, true)).toBe("application/json");
    // As named when the first bytes cannot tell: a header alone, a first line longer than the head,
    // a one-line document not read whole, text that is neither.
    expect(bundleContentTypeOf("bank.jsonl", `${header}\n`, true)).toBe("application/x-ndjson");
    expect(bundleContentTypeOf("bank.json", `${header}\n`, true)).toBe("application/json");
    expect(bundleContentTypeOf("bank.jsonl", '{"version":1,"bank":{"id":"b","na', false)).toBe("application/x-ndjson");
    expect(bundleContentTypeOf("bank.json", JSON.stringify(doc), false)).toBe("application/json");
    expect(bundleContentTypeOf("bank.jsonl", "not json\nat all", true)).toBe("application/x-ndjson");
    expect(bundleContentTypeOf("bank.json", "not json\nat all", true)).toBe("application/json");
  });
});
