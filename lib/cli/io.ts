/**
 * Where a command writes: the process's own streams when run as `cli`, strings in a test that
 * calls `runCli` in-process. Anything with a `write(text)` will do.
 */
export interface CliIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

export const processIo: CliIo = { stdout: process.stdout, stderr: process.stderr };

/** One line to stdout (what `console.log` would print). */
export function say(io: CliIo, text: string): void {
  io.stdout.write(`${text}\n`);
}

/** One line to stderr (what `console.error` would print). */
export function warn(io: CliIo, text: string): void {
  io.stderr.write(`${text}\n`);
}
