/**
 * Where a command reads and writes: the process's own streams when run as `cli`, strings in a test
 * that calls `runCli` in-process. Anything with a `write(text)` will do; stdin is any async
 * iterable of bytes or text (a test passes `Readable.from([...])`; none given reads as empty).
 * A file argument of `-` means stdin (input) or stdout (output), as the conventions have it
 * (docs/cli.md#stdin-and-stdout).
 */
import { readFileSync, writeFileSync } from "node:fs";

export interface CliIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  stdin?: AsyncIterable<Uint8Array | string>;
}

export const processIo: CliIo = {
  stdout: process.stdout,
  stderr: process.stderr,
  // A getter: touching process.stdin opens it (a tty or pipe handle), which only `-` needs.
  get stdin() {
    return process.stdin;
  },
};

/** One line to stdout (what `console.log` would print). */
export function say(io: CliIo, text: string): void {
  io.stdout.write(`${text}\n`);
}

/** One line to stderr (what `console.error` would print). */
export function warn(io: CliIo, text: string): void {
  io.stderr.write(`${text}\n`);
}

/** The conventional name for stdin / stdout where a file is taken. */
export const STDIO = "-";

/** How a file argument is named in messages: `-` is "stdin". */
export const inputName = (file: string) => (file === STDIO ? "stdin" : file);

/** A refusal of the command line (exit 2), made here without loading the argument parser. */
async function usage(message: string): Promise<never> {
  throw (await import("./args")).usageError(message);
}

/**
 * stdin's chunks as bytes (empty when the io has no stdin). A terminal on stdin is refused rather
 * than waited on: `-` asks for piped input, and a user who typed it by mistake would see a hang.
 */
export async function* stdinChunks(io: CliIo): AsyncGenerator<Buffer> {
  if (!io.stdin) return;
  if ((io.stdin as { isTTY?: boolean }).isTTY) await usage("- reads stdin, but stdin is a terminal: pipe the input in");
  for await (const chunk of io.stdin) yield typeof chunk === "string" ? Buffer.from(chunk) : Buffer.from(chunk);
}

/**
 * A whole input: the file's bytes, or everything on stdin for `-`. With `maxBytes`, stdin longer
 * than that is refused as soon as it is (not read to its end first).
 */
export async function readInput(io: CliIo, file: string, maxBytes = Number.POSITIVE_INFINITY): Promise<Buffer> {
  if (file !== STDIO) return readFileSync(file);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stdinChunks(io)) {
    size += chunk.length;
    if (size > maxBytes) await usage(`stdin is longer than ${maxBytes} bytes; nothing was read`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** Writes `text` to the file `out`, or to stdout for `-` or when no `--out` was given. */
export function writeOutput(io: CliIo, out: string | undefined, text: string): void {
  if (!out || out === STDIO) io.stdout.write(text);
  else writeFileSync(out, text);
}
