/**
 * What `cli --help`, `cli help [command]` and `<command> --help` print: usage, flags with their
 * defaults, and examples. One entry per command; the overview is built from the same entries.
 */
import { MCP_TOOL_NAMES } from "@/lib/contracts/mcp-tools";

interface CommandHelp {
  usage: string;
  summary: string;
  /** `[flag, what it does (default)]`. */
  options: [string, string][];
  examples: string[];
}

const CLI = "npm run cli --";

export const COMMAND_HELP = {
  import: {
    usage:
      "import <bundle.json|bundle.jsonl|-> [--replace] | import --from hindsight <base-url> --bank <id> [--as <id>] [--api-key <key>] [--timeout-ms <n>] [--replace] [--json]",
    summary:
      "Import a bank bundle (atomic: a bad bundle changes nothing). A .jsonl file is read line by line (line 1 {version, bank}, then one {fact}, {observation}, {mentalModel} or {skill} per line), for banks too large for one JSON document. - reads stdin: JSON lines when its first line is such a header, else one JSON document. With --from hindsight, reads a bank from a Hindsight server's HTTP API instead (docs/hindsight.md) and says what it could not carry.",
    options: [
      ["--replace", "replace the bank if it exists (default: refuse)"],
      ["--from hindsight <url>", "read the bank from a Hindsight server (http or https) instead of a file"],
      ["--bank <id>", "with --from: the bank's id on the Hindsight server (required)"],
      ["--as <id>", "with --from: the bank id here (default: the Hindsight id)"],
      ["--api-key <key>", "with --from: Hindsight's API key (default: HINDSIGHT_API_KEY; never stored or printed)"],
      ["--timeout-ms <n>", "with --from: per request, whole body included (default 30000)"],
      ["--json", "with --from: print the result (counts, what was skipped and why) as JSON"],
    ],
    examples: [
      `${CLI} import db/demo/demo-bank.json --replace`,
      `gunzip -c demo.json.gz | ${CLI} import - --replace`,
      `${CLI} import --from hindsight http://localhost:8888 --bank alice --replace`,
    ],
  },
  export: {
    usage: "export --bank <id> [--out <file.json|->]",
    summary: "Export a bank as a bundle.",
    options: [
      ["--bank <id>", "the bank to export (required)"],
      ["--out <file>", "write to this file; - is stdout (default: stdout)"],
    ],
    examples: [`${CLI} export --bank demo --out demo.json`, `${CLI} export --bank demo --out - | gzip > demo.json.gz`],
  },
  reflect: {
    usage: 'reflect --bank <id> [options] "<question>"|-',
    summary:
      "Ask a question: run the reflect loop, store the run and print the answer with its trace. - reads the question from stdin (an empty one starts no run).",
    options: [
      ["--bank <id>", "the memory bank (required)"],
      ["--skill <name>", 'the skill to run (default: "recap", else the bank\'s first skill)'],
      ["--budget low|mid|high", "search budget (default: the skill's)"],
      ["--mode synthesize|facts", "synthesize an answer, or list facts (default: synthesize)"],
      ["--scope personal|team:<id>", "memory scope (default: the skill's)"],
      ["--anchor-every <N>", "restate the mission every N iterations, 1-50 (default: the skill's)"],
      ["--json", "print one JSON object: the run result and its events (default: a human summary)"],
      [
        "--hindsight <url>",
        "ask a Hindsight server's reflect instead (--bank: its bank; --as: the bank here to file the run under; --api-key, --timeout-ms as for import); stored as an imported run to compare",
      ],
    ],
    examples: [
      `${CLI} reflect --bank demo "What did we decide about the launch date?"`,
      `${CLI} reflect --hindsight http://localhost:8888 --bank alice "Where does Alice work?"`,
      `${CLI} reflect --bank demo --skill decisions --budget high --json "Who owns the SSO rollout?"`,
      `echo "What is blocking the SSO rollout?" | ${CLI} reflect --bank demo -`,
    ],
  },
  runs: {
    usage:
      "runs export <run-id> [--format json|otlp] [--out <file>] | runs prune (--older-than <30d|12h> | --keep <N>) [--bank <id>] [--dry-run] [--vacuum] [--json] | runs retention --bank <id> [--older-than <30d|12h> | --keep <N> | --off]",
    summary:
      "Write a stored run out: its record and event log (json) or an OTLP/JSON trace (otlp). Prune old runs and their events (runs an experiment, a refresh proposal or a re-run refers to are kept, and listed), or set a bank's retention that the server applies hourly.",
    options: [
      ["--format json|otlp", "export: json: the run and its events; otlp: an OpenTelemetry trace (default: json)"],
      ["--out <file>", "export: write to this file; - is stdout (default: stdout)"],
      ["--older-than <30d|12h>", "prune / retention: runs created longer ago than this (days or hours)"],
      ["--keep <N>", "prune / retention: all but each bank's newest N runs"],
      ["--bank <id>", "prune: only this bank (default: every bank); retention: the bank (required)"],
      ["--dry-run", "prune: report what would be removed and change nothing"],
      ["--vacuum", "prune: rewrite a database made before retention existed, once, so the file shrinks"],
      ["--off", "retention: remove the bank's setting (no flag: print it)"],
      ["--json", "prune / retention: print one JSON object"],
    ],
    examples: [
      `${CLI} runs export run_abc123 --format otlp --out run.otlp.json`,
      `${CLI} runs prune --older-than 30d --dry-run`,
      `${CLI} runs prune --keep 200 --bank demo`,
      `${CLI} runs retention --bank demo --older-than 90d`,
    ],
  },
  mcp: {
    usage: "mcp",
    summary: `Serve the MCP tools (${MCP_TOOL_NAMES.join(", ")}) over stdio.`,
    options: [],
    examples: [
      `${CLI} mcp`,
      "npm --prefix /path/to/reflect-inspector run --silent cli -- mcp   (an MCP client's command)",
    ],
  },
  suite: {
    usage: "suite import|export --bank <id> --suite <name> [<file.jsonl>|-]",
    summary:
      "Import a question suite from JSONL (a new version; a bad line imports nothing; - reads stdin) or print it as JSONL.",
    options: [
      ["--bank <id>", "the memory bank (required)"],
      ["--suite <name>", "the suite (required; import creates it when it does not exist)"],
    ],
    examples: [
      `${CLI} suite import --bank demo --suite release-gate questions.jsonl`,
      `${CLI} suite export --bank demo --suite release-gate > questions.jsonl`,
      `cat questions.jsonl | ${CLI} suite import --bank demo --suite release-gate -`,
    ],
  },
  experiment: {
    usage:
      "experiment run --bank <id> --suite <name> [--budget low|mid|high] [--skill-version N [--skill <name>]] [--baseline <experimentId> [--allow-incomplete-baseline]] [--concurrency N] [--json]",
    summary:
      "Run every question of a suite; exit 1 when an expectation fails or a regression against the baseline appears, 3 when none did but the experiment was cancelled or stopped (questions skipped), else 0.",
    options: [
      ["--bank <id>", "the memory bank (required)"],
      ["--suite <name>", "the suite to run (required)"],
      ["--budget low|mid|high", "every question's budget (default: each question's, else its skill's)"],
      ["--skill-version <N>", "run saved version N of the skill instead of the current one (nothing is saved)"],
      ["--skill <name>", "the skill --skill-version applies to (default: the suite's only skill)"],
      [
        "--baseline <id>",
        "compare with this experiment; a regression fails the gate; an incomplete one (failed, cancelled, a question skipped) is refused (exit 2)",
      ],
      [
        "--allow-incomplete-baseline",
        "compare with an incomplete baseline anyway: only questions run on both sides, the rest counted as not compared",
      ],
      ["--concurrency <N>", "questions running at once, 1-16 (default: 4)"],
      ["--json", "print one JSON object {id, suite, config, totals, results} (default: a table)"],
    ],
    examples: [
      `${CLI} experiment run --bank demo --suite demo-tour`,
      `${CLI} experiment run --bank demo --suite demo-tour --baseline exp_abc123 --json`,
    ],
  },
  embed: {
    usage: "embed [--bank <id>]",
    summary: "Compute the embeddings that are missing (needs REFLECT_EMBEDDINGS=openai and OPENAI_API_KEY).",
    options: [["--bank <id>", "only this bank (default: every bank)"]],
    examples: [`REFLECT_EMBEDDINGS=openai ${CLI} embed --bank demo`],
  },
  bench: {
    usage:
      "bench import locomo <locomo.json|-> [--prefix <p>] [--summaries fresh|stale] [--min-f1 <0-1>] [--replace] [--json]",
    summary:
      "Import a public benchmark: LoCoMo's file becomes one bank per conversation (turns with speaker, session and date; its observations; optionally its session summaries as mental models) and one suite per conversation of every question, tagged by category. Malformed data is repaired or dropped and reported.",
    options: [
      ["--prefix <p>", 'bank id prefix: bank "<p><sample_id>" (default: locomo-)'],
      ["--summaries fresh|stale", "add the session summaries as mental models (default: none)"],
      ["--min-f1 <0-1>", "the answer F1 a question must reach to pass (default: 0.5)"],
      ["--replace", "replace banks that exist (default: refuse, and import nothing)"],
      ["--json", "print one JSON object {benchmark, banks, repairs} (default: lines)"],
    ],
    examples: [
      `${CLI} bench import locomo ../shared/benchmarks/locomo/locomo-dev.json`,
      `${CLI} experiment run --bank locomo-conv-26 --suite locomo-conv-26`,
    ],
  },
  model: {
    usage: "model check [--json]",
    summary:
      "Probe the configured model server (plain chat, tool choices, tool calls as text, reasoning) and print what works; exit 1 when it cannot call tools in any form.",
    options: [["--json", "print one JSON object (default: a table)"]],
    examples: [
      `${CLI} model check`,
      `REFLECT_LLM=openai OPENAI_BASE_URL=http://localhost:8000/v1 OPENAI_API_KEY=local REFLECT_MODEL=qwen3 ${CLI} model check --json`,
    ],
  },
  version: {
    usage: "version [--json]",
    summary: "Print the package version, one line (also --version, -V).",
    options: [["--json", 'print {"name", "version"} as one JSON object (default: the bare version)']],
    examples: [`${CLI} --version`, `${CLI} version --json`],
  },
} satisfies Record<string, CommandHelp>;

export type CommandName = keyof typeof COMMAND_HELP;

export const isCommandName = (name: string): name is CommandName => Object.hasOwn(COMMAND_HELP, name);

/** `--help` / `-h` anywhere among a command's arguments asks for its help. */
export const wantsHelp = (argv: readonly string[]) => argv.some((a) => a === "--help" || a === "-h");

const ENVIRONMENT: [string, string][] = [
  ["DATABASE_URL", "libSQL database (default: file:./data/inspector.db)"],
  ["REFLECT_LLM", "offline | openai (default: openai when OPENAI_API_KEY is set, else offline)"],
  ["OTEL_EXPORTER_OTLP_ENDPOINT", "push every finished run to an OTLP/HTTP collector (see README, Traces)"],
];

function table(rows: [string, string][]): string[] {
  const width = Math.max(...rows.map(([left]) => left.length));
  return rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`);
}

export function commandHelp(name: CommandName): string {
  const h: CommandHelp = COMMAND_HELP[name];
  const lines = [`usage: cli ${h.usage}`, "", h.summary, ""];
  lines.push("options:", ...table([...h.options, ["-h, --help", "print this help"]]), "");
  lines.push("examples:", ...h.examples.map((e) => `  ${e}`));
  return `${lines.join("\n")}\n`;
}

export function overviewHelp(): string {
  const commands = (Object.keys(COMMAND_HELP) as CommandName[]).map((name): [string, string] => [
    name,
    COMMAND_HELP[name].summary,
  ]);
  const lines = [
    `usage: ${CLI} <command> [options]`,
    "",
    "commands:",
    ...table(commands),
    "",
    "Run `cli help <command>` or `cli <command> --help` for a command's flags, defaults and examples; `cli --version` (-V) prints the version.",
    "Where a command takes a file, - means stdin (input) or stdout (output).",
    "Bad input prints one line to stderr and exits 2; a finished run of any status exits 0 (experiment run: 1 when the gate fails, 3 when the experiment did not complete).",
    "",
    "environment:",
    ...table(ENVIRONMENT),
  ];
  return `${lines.join("\n")}\n`;
}
