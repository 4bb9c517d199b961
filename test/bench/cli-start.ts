/**
 * The CLI's start-up (issue 30): the built entry (dist/cli.mjs) and `npm run cli` against `node -e ''`
 * and `npm -v` measured the same way on the same machine, then a `reflect` on the demo bank and an
 * `experiment run` of the demo suite end to end. Each figure is the median of several runs of a
 * fresh process; the load average at the time is in the notes.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { loadavg } from "node:os";
import { join, resolve } from "node:path";
import { ensureCli } from "@/scripts/build-cli.mjs";
import { atMost, type BenchRow, median, row } from "./report";

const SECTION = "cli";
const RUNS = 7;
const root = resolve(import.meta.dirname, "../..");
const round = (ms: number) => Math.round(ms);

/** Median wall time of `RUNS` runs of a command (one warm-up run first); throws when it fails. */
function wall(command: string, args: string[], env: Record<string, string> = {}, runs = RUNS): number {
  const times: number[] = [];
  for (let i = 0; i <= runs; i++) {
    const started = performance.now();
    const res = spawnSync(command, args, { cwd: root, env: { ...process.env, ...env }, encoding: "utf8" });
    const ms = performance.now() - started;
    if (res.status !== 0) throw new Error(`${command} ${args.join(" ")} exited ${res.status}: ${res.stderr}`);
    if (i > 0) times.push(ms);
  }
  return median(times);
}

/**
 * Median CPU time (user + system, all threads) of `RUNS` runs of the built CLI, as the process
 * itself reports it at exit: on a shared machine the wall time grows with the load average, the
 * CPU a command needs much less, so these rows compare across runs where the wall rows cannot.
 */
function cpu(args: string[], env: Record<string, string> = {}, runs = RUNS): number {
  const report =
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a template literal of the child's code, not of this file
    "data:text/javascript,import{writeSync}from'node:fs';process.on('exit',()=>{const c=process.cpuUsage();writeSync(2,`\\ncpu-us ${c.user+c.system}\\n`)})";
  const times: number[] = [];
  for (let i = 0; i <= runs; i++) {
    const res = spawnSync(process.execPath, ["--import", report, ...args], {
      cwd: root,
      env: { ...process.env, ...env },
      encoding: "utf8",
    });
    const us = /cpu-us (\d+)/.exec(res.stderr)?.[1];
    if (res.status !== 0 || !us) throw new Error(`node ${args.join(" ")} exited ${res.status}: ${res.stderr}`);
    if (i > 0) times.push(Number(us) / 1000);
  }
  return median(times);
}

export async function benchCliStart(log: (line: string) => void): Promise<BenchRow[]> {
  const entry = ensureCli();
  const dir = join(root, "test", ".tmp", `bench-cli-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  const env = { DATABASE_URL: `file:${join(dir, "cli.db")}`, REFLECT_LLM: "offline", OPENAI_API_KEY: "" };
  try {
    const load = () => `load ${loadavg()[0]!.toFixed(1)}`;
    const node = wall(process.execPath, ["-e", ""]);
    const npm = wall("npm", ["-v"]);
    const built = wall(process.execPath, [entry, "--help"]);
    const version = wall(process.execPath, [entry, "--version"]);
    const viaNpm = wall("npm", ["run", "-s", "cli", "--", "--help"]);
    const tsx = wall(
      process.execPath,
      [join(root, "node_modules/tsx/dist/cli.mjs"), "lib/cli/main.ts", "--help"],
      {},
      3,
    );
    log(`  node -e '' ${round(node)} ms, npm -v ${round(npm)} ms (${load()})`);
    log(
      `  --help: built ${round(built)} ms, npm run cli ${round(viaNpm)} ms, tsx ${round(tsx)} ms; --version ${round(version)} ms`,
    );
    // The first command seeds the demo bank; every measured one finds it there.
    wall(process.execPath, [entry, "export", "--bank", "demo"], env, 0);
    const reflect = wall(
      process.execPath,
      [entry, "reflect", "--bank", "demo", "--json", "What did we decide about the launch date?"],
      env,
      5,
    );
    const experiment = wall(
      process.execPath,
      [entry, "experiment", "run", "--bank", "demo", "--suite", "demo-tour", "--json"],
      env,
      3,
    );
    log(`  reflect ${round(reflect)} ms, experiment run (10 questions) ${round(experiment)} ms (${load()})`);
    const question = [entry, "reflect", "--bank", "demo", "--json", "What did we decide about the launch date?"];
    const cpuFloor = cpu(["-e", ""]);
    const cpuHelp = cpu([entry, "--help"]);
    const cpuReflect = cpu(question, env, 5);
    const cpuExperiment = cpu([entry, "experiment", "run", "--bank", "demo", "--suite", "demo-tour", "--json"], env, 3);
    log(
      `  CPU: node -e '' ${round(cpuFloor)} ms, --help ${round(cpuHelp)} ms, reflect ${round(cpuReflect)} ms, experiment run ${round(cpuExperiment)} ms`,
    );
    const ratio = Math.round((viaNpm / npm) * 10) / 10;
    return [
      row(SECTION, "node -e '' (the floor, same machine)", round(node), "ms"),
      row(SECTION, "npm -v (npm's own start, same machine)", round(npm), "ms"),
      row(SECTION, "node dist/cli.mjs --help", round(built), "ms", atMost(built, 300, "ms"), load()),
      row(SECTION, "node dist/cli.mjs --version", round(version), "ms", atMost(version, 300, "ms"), load()),
      row(SECTION, "npm run -s cli -- --help, as a multiple of npm -v", ratio, "×", atMost(ratio, 4, "×"), load()),
      row(SECTION, "tsx lib/cli/main.ts --help (before: transpiled at run time)", round(tsx), "ms"),
      row(
        SECTION,
        "cli reflect on the demo bank, end to end",
        round(reflect),
        "ms",
        atMost(reflect, 600, "ms"),
        load(),
      ),
      row(
        SECTION,
        "cli experiment run of the demo suite (10 questions), end to end",
        round(experiment),
        "ms",
        atMost(experiment, 2000, "ms"),
        load(),
      ),
      row(SECTION, "CPU time (user+sys): node -e ''", round(cpuFloor), "ms"),
      row(SECTION, "CPU time (user+sys): node dist/cli.mjs --help", round(cpuHelp), "ms", undefined, load()),
      row(SECTION, "CPU time (user+sys): cli reflect on the demo bank", round(cpuReflect), "ms", undefined, load()),
      row(
        SECTION,
        "CPU time (user+sys): cli experiment run of the demo suite",
        round(cpuExperiment),
        "ms",
        undefined,
        load(),
      ),
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
