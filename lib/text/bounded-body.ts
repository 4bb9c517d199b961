/**
 * Reads a body stream whole, refusing it (with `tooLarge()`) past `maxBytes` while it streams:
 * nothing past the cap is read or kept. Shared by the model client (a response), the Hindsight
 * import (a response) and the OTLP receiver (a request).
 */
export async function readBounded(
  body: ReadableStream<Uint8Array> | null | undefined,
  maxBytes: number,
  tooLarge: () => Error,
): Promise<Uint8Array<ArrayBuffer>> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (body) {
    const reader = body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel().catch(() => {});
        throw tooLarge();
      }
      chunks.push(value);
    }
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}
