import { describe, expect, it } from "vitest";
import { createFrameParser, type StreamFrame } from "@/lib/client/event-stream";

function parseAll(chunks: string[]): StreamFrame[] {
  const frames: StreamFrame[] = [];
  const parse = createFrameParser((f) => frames.push(f));
  for (const c of chunks) parse(c);
  return frames;
}

describe("event stream frame parser", () => {
  it("reads id, event and data, whatever the chunk boundaries", () => {
    const text = 'id: 0\nevent: run.started\ndata: {"seq":0}\n\nid: 1\nevent: llm.request\ndata: {"seq":1}\n\n';
    const whole = parseAll([text]);
    expect(whole).toEqual([
      { id: "0", event: "run.started", data: '{"seq":0}' },
      { id: "1", event: "llm.request", data: '{"seq":1}' },
    ]);
    // Every split point, including inside "\n\n" and inside a field name.
    for (let i = 1; i < text.length; i++) expect(parseAll([text.slice(0, i), text.slice(i)])).toEqual(whole);
  });

  it("accepts CRLF and CR line ends, even a CRLF split across chunks", () => {
    expect(parseAll(["id: 7\r\ndata: a\r", "\n\r\n", "data: b\r\r\n"])).toEqual([
      { id: "7", event: "message", data: "a" },
      { id: undefined, event: "message", data: "b" },
    ]);
  });

  it("joins multi-line data, skips comments, and reports a frame that only moves the cursor", () => {
    expect(parseAll([": keep-alive\n\ndata: one\ndata: two\n\nid: 42\n: keep-alive\n\n"])).toEqual([
      { id: undefined, event: "message", data: "one\ntwo" },
      { id: "42", event: "message", data: "" },
    ]);
  });

  it("waits for the blank line before it reports a frame", () => {
    expect(parseAll(["id: 1\nevent: run\ndata: {}\n"])).toEqual([]);
  });
});
