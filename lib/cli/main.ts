/**
 * `npm run cli -- <command>`: import / export bank bundles, run a reflect. Bad input prints one
 * line to stderr and exits 2; a finished run of any status exits 0 (experiment run: 1 when the gate
 * fails, 3 when the experiment did not complete). `--help` / `-h` / `help`
 * print usage to stdout and exit 0. Traces of the runs it finished reach the configured OTLP
 * collector before the process exits.
 *
 * `runCli(argv, io)` is the whole command line as a function (tests call it in-process); run as a
 * script (the built `dist/cli.mjs`, or tsx on this file) it is called with the process's streams.
 */
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { COMMAND_HELP, type CommandName, commandHelp, isCommandName, overviewHelp, wantsHelp } from "./help";
import { type CliIo, processIo, warn } from "./io";
import { terminalSafe } from "./terminal";
import { versionLine, versionRequest } from "./version";

type Command = (argv: string[], io: CliIo) => Promise<unknown>;

/**
 * A command resolves to its exit code when it has one other than 0 (a number), else to nothing.
 * Each is loaded when called, so `--help` answers without loading the database, the model SDK or
 * the tracing libraries (most of the CLI's start-up).
 */
const COMMANDS: Record<CommandName, () => Promise<Command>> = {
  import: async () => (await import("./bank")).importCommand,
  export: async () => (await import("./bank")).exportCommand,
  reflect: async () => (await import("./reflect")).reflectCommand,
  runs: async () => (await import("./runs")).runsCommand,
  mcp: async () => (await import("./mcp")).mcpCommand,
  embed: async () => (await import("./embed")).embedCommand,
  model: async () => (await import("./model")).modelCommand,
  suite: async () => (await import("./experiments")).suiteCommand,
  experiment: async () => (await import("./experiments")).experimentCommand,
  bench: async () => (await import("./bench")).benchCommand,
  // Reached only with arguments `versionRequest` refuses: a usage error (exit 2).
  version: async () => async () => {
    throw (await import("./args")).usageError(`usage: ${COMMAND_HELP.version.usage}`);
  },
};

/** Runs one command line; resolves to its exit code. Writes only through `io`. */
export async function runCli(
  argv: string[],
  io: CliIo = processIo,
  options: { admission?: boolean } = {},
): Promise<number> {
  if (io === processIo) quietOnClosedPipe();
  const [command, ...rest] = argv;
  if (command === undefined) {
    io.stderr.write(overviewHelp());
    return 2;
  }
  const version = versionRequest(argv);
  if (version) {
    io.stdout.write(versionLine(version.json));
    return 0;
  }
  if (command === "--version" || command === "-V") return runCli(["version", ...rest], io);
  if (command === "--help" || command === "-h" || command === "help") {
    const topic = rest[0];
    if (topic !== undefined && !isCommandName(topic)) {
      warn(io, terminalSafe(`error: unknown command "${topic}"; run \`cli --help\` for the list`));
      return 2;
    }
    io.stdout.write(topic ? commandHelp(topic) : overviewHelp());
    return 0;
  }
  if (!isCommandName(command)) {
    warn(io, terminalSafe(`error: unknown command "${command}"; run \`cli --help\` for the list`));
    return 2;
  }
  if (wantsHelp(rest)) {
    io.stdout.write(commandHelp(command));
    return 0;
  }
  const [{ assertValidText }, { cliError }, { flushTracePushes }, { withoutAdmission }] = await Promise.all([
    import("@/lib/contracts/text"),
    import("@/lib/server/http/errors"),
    import("@/lib/server/services/otlp-push"),
    import("@/lib/server/runtime/admission"),
  ]);
  if (options.admission === false) withoutAdmission();
  try {
    assertValidText(rest, "the arguments");
    const code = await (await COMMANDS[command]())(rest, io);
    return typeof code === "number" ? code : 0;
  } catch (err) {
    const { lines, exitCode } = cliError(err);
    for (const line of lines) warn(io, terminalSafe(line));
    return exitCode;
  } finally {
    // A run finished here is pushed to the collector before the process exits (failures are logged).
    await flushTracePushes();
  }
}

let pipeWatched = false;

/**
 * `cli export --out - | head` closes stdout early: the reader wants no more, which is no error (no
 * stack trace); the command still finishes (a run is stored, its trace pushed), its output dropped.
 */
function quietOnClosedPipe(): void {
  if (pipeWatched) return;
  pipeWatched = true;
  process.stdout.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code !== "EPIPE") throw err;
  });
}

/** True when this module is the script node was started with (not when a test imports it). */
function isEntry(): boolean {
  const script = process.argv[1];
  if (!script) return false;
  try {
    return realpathSync(script) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

/**
 * The CLI as its own process (dist/cli.mjs, scripts/cli.mjs, tsx on this file): this process
 * serves nobody else, so its runs take no server admission slot (lib/server/runtime/admission.ts) and
 * `experiment run --concurrency N` runs N at once. Tests call `runCli`, which leaves the policy alone.
 */
export function runCliProcess(argv: string[]): Promise<number> {
  return runCli(argv, processIo, { admission: false });
}

if (isEntry()) {
  runCliProcess(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
