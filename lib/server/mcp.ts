/**
 * The inspector as an MCP server: `memory_reflect` runs the reflect engine (every call becomes a
 * stored, inspectable run), `memory_recall` searches raw facts, `memory_retain` stores new facts,
 * `memory_experiment` runs a question suite and reports its totals and failing questions.
 * One factory serves both transports (Streamable HTTP at /api/mcp, stdio via the CLI). Each tool
 * declares an `outputSchema` (lib/contracts/mcp.ts) and answers with `structuredContent` matching
 * it beside the text; the SDK checks the one against the other before anything is sent.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";
import type { Db } from "@/db/client";
import { getRunEvents } from "@/db/runs";
import { invalidInput } from "@/lib/contracts/errors";
import { McpExperimentInput, StartExperimentInput } from "@/lib/contracts/experiments";
import { DEFAULT_MCP_BANK } from "@/lib/contracts/fields";
import { McpExperimentOutput, McpRecallOutput, McpReflectOutput, McpRetainOutput } from "@/lib/contracts/mcp";
import { MCP_TOOL_NAMES } from "@/lib/contracts/mcp-tools";
import { McpRecallInput, McpRetainInput, type RecallResult } from "@/lib/contracts/memory";
import { McpReflectInput, runLinks } from "@/lib/contracts/runs";
import { assertValidText } from "@/lib/contracts/text";
import type { ModelPort } from "@/lib/reflect";
import { TIER_INFO } from "@/lib/reflect/domain";
import { foldRun } from "@/lib/timeline/fold";
import { plural } from "@/lib/timeline/format";
import { version } from "../../package.json";
import { requireBank } from "./banks";
import { mcpError } from "./errors";
import { getExperimentComparison, startExperiment, totalsSentence } from "./experiments";
import { recallTier } from "./recall";
import { retainFacts } from "./retain";
import { startRun } from "./runs";

const DEFAULT_PUBLIC_URL = "http://127.0.0.1:3000";

export interface McpServerOptions {
  getDb: () => Promise<Db>;
  /** Base of the run links handed to the agent; defaults to INSPECTOR_PUBLIC_URL, then localhost:3000. */
  publicUrl?: string;
  model?: ModelPort;
}

export function inspectorUrl(publicUrl: string | undefined): string {
  return (publicUrl ?? process.env.INSPECTOR_PUBLIC_URL ?? DEFAULT_PUBLIC_URL).replace(/\/+$/, "");
}

/** The text an agent reads and the same answer as data, checked against the tool's output schema here too. */
function answer<S extends z.ZodType>(schema: S, value: string, data: z.input<S>): CallToolResult {
  return { content: [{ type: "text", text: value }], structuredContent: schema.parse(data) as Record<string, unknown> };
}

/** Every failure (unknown bank or skill, forbidden scope, …) goes back to the agent as a tool error. */
async function guarded(fn: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await fn();
  } catch (err) {
    return mcpError(err);
  }
}

type ToolInputValidator = (tool: { inputSchema?: unknown }, args: unknown, name: string) => Promise<unknown>;

/**
 * The SDK validates tool arguments itself and would hand the agent zod's raw JSON dump. Its hook
 * is replaced with ours: valid text first, then the tool's own contract, a refusal as one line.
 */
function validateToolInputOurWay(server: McpServer): void {
  const target = server as unknown as { validateToolInput?: ToolInputValidator };
  if (typeof target.validateToolInput !== "function") {
    throw new Error("@modelcontextprotocol/sdk no longer has McpServer.validateToolInput: update lib/server/mcp.ts");
  }
  target.validateToolInput = async (tool, args, name) => {
    const schema = tool.inputSchema as z.ZodType | undefined;
    try {
      assertValidText(args ?? {}, "the arguments");
      if (!schema) return undefined;
      const parsed = await schema.safeParseAsync(args ?? {});
      if (!parsed.success) throw invalidInput(parsed.error, `Invalid arguments for ${name}.`);
      return parsed.data;
    } catch (err) {
      // The SDK turns a thrown error's message into the tool error text.
      throw new Error(mcpError(err).content[0]?.text ?? `Invalid arguments for ${name}.`);
    }
  };
}

export function createMcpServer(options: McpServerOptions): McpServer {
  const server = new McpServer({ name: "reflect-inspector", version });
  validateToolInputOurWay(server);
  const baseUrl = inspectorUrl(options.publicUrl);

  server.registerTool(
    "memory_reflect",
    {
      title: "Reflect over a memory bank",
      description:
        "Answer a question from a memory bank: searches mental models, observations and raw facts, then returns a " +
        "grounded answer with the memories it cites and a link to inspect the run step by step.",
      inputSchema: McpReflectInput,
      outputSchema: McpReflectOutput,
      annotations: { readOnlyHint: false, openWorldHint: false },
    },
    (args) =>
      guarded(async () => {
        const db = await options.getDb();
        const { bank, ...request } = args;
        const { runId, finished } = await startRun(
          db,
          { ...request, bankId: bank ?? DEFAULT_MCP_BANK },
          { model: options.model },
        );
        const result = await finished;
        const view = foldRun(await getRunEvents(db, runId));
        const cited = view.citations.filter((c) => c.status === "kept");
        const lines = [result.answer || "(no answer)", ""];
        if (cited.length > 0) {
          lines.push("Cited memories:");
          for (const c of cited) lines.push(`- [${c.id}] (${c.tier}) ${oneLine(c.text ?? "")}`.trimEnd());
        } else {
          lines.push("Cited memories: none");
        }
        lines.push("", `Status: ${result.status}`, `Run: ${runId}`, `Inspect: ${baseUrl}/runs/${runId}`);
        if (result.error) lines.push(`Error (${result.error.phase}): ${result.error.message}`);
        const links = runLinks(runId);
        return answer(McpReflectOutput, lines.join("\n"), {
          runId,
          status: result.status,
          answer: result.answer,
          citations: cited.map((c) => ({ id: c.id, tier: c.tier, text: c.text ?? null })),
          flags: result.flags,
          error: result.error ? { phase: result.error.phase, message: result.error.message } : null,
          links: {
            inspector: `${baseUrl}${links.inspector}`,
            self: `${baseUrl}${links.self}`,
            events: `${baseUrl}${links.events}`,
          },
        });
      }),
  );

  server.registerTool(
    "memory_recall",
    {
      title: "Recall memories",
      description:
        "Search one tier of a memory bank: raw facts (default), observations (with the facts they came from) or mental models. BM25, plus vectors when configured. Returns hits with ids.",
      inputSchema: McpRecallInput,
      outputSchema: McpRecallOutput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      guarded(async () => {
        const db = await options.getDb();
        const { bank, ...query } = args;
        const bankId = bank ?? DEFAULT_MCP_BANK;
        await requireBank(db, bankId);
        const found = await recallTier(db, bankId, query);
        const data = { bank: bankId, result: found };
        if (found.count === 0) {
          return answer(
            McpRecallOutput,
            `No ${TIER_INFO[found.tier].label} in bank "${bankId}" match "${args.query}".`,
            data,
          );
        }
        return answer(
          McpRecallOutput,
          `${found.count} ${TIER_INFO[found.tier].label} from bank "${bankId}":\n${recallLines(found).join("\n")}`,
          data,
        );
      }),
  );

  server.registerTool(
    "memory_retain",
    {
      title: "Retain facts",
      description:
        "Store new raw facts in a memory bank. Mental models whose scope covers them become stale until refreshed.",
      inputSchema: McpRetainInput,
      outputSchema: McpRetainOutput,
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
    },
    (args) =>
      guarded(async () => {
        const db = await options.getDb();
        const bankId = args.bank ?? DEFAULT_MCP_BANK;
        await requireBank(db, bankId);
        const result = await retainFacts(db, bankId, { facts: args.facts });
        const stale = result.staleMentalModels.map((m) => m.name);
        return answer(
          McpRetainOutput,
          `Retained ${result.inserted.length} fact(s) in bank "${bankId}": ${result.inserted.join(", ")}` +
            (stale.length ? `\nNow stale (refresh them): ${stale.join(", ")}` : ""),
          {
            bank: bankId,
            inserted: result.inserted,
            staleMentalModels: result.staleMentalModels.map((m) => ({ id: m.id, name: m.name })),
          },
        );
      }),
  );

  server.registerTool(
    "memory_experiment",
    {
      title: "Run a question suite (experiment)",
      description:
        "Run every question of a bank's question suite as ordinary runs and report the totals and the questions " +
        "that failed an expectation (or regressed against a baseline experiment), with links to inspect them.",
      inputSchema: McpExperimentInput,
      outputSchema: McpExperimentOutput,
      annotations: { readOnlyHint: false, openWorldHint: false },
    },
    (args) =>
      guarded(async () => {
        const db = await options.getDb();
        const input = StartExperimentInput.parse({
          bankId: args.bank ?? DEFAULT_MCP_BANK,
          suite: args.suite,
          baseline: args.baseline,
          allowIncompleteBaseline: args.allowIncompleteBaseline,
          config: { budget: args.budget },
        });
        const { finished } = await startExperiment(db, input, { model: options.model });
        const e = await finished;
        const cmp = args.baseline ? await getExperimentComparison(db, args.baseline, e.id) : null;
        const regressed = new Map(cmp?.questions.filter((q) => q.head && q.regression).map((q) => [q.head?.index, q]));
        const lines = [
          `Experiment ${e.id} (suite ${e.suite} v${e.suiteVersion}): ${e.status}`,
          totalsSentence(e.totals) +
            (cmp
              ? `; against ${cmp.base.id}: ${plural(cmp.totals.regressions, "regression")}, ${plural(cmp.totals.improvements, "improvement")}`
              : ""),
        ];
        const failing = e.rows.filter((r) => r.passed === false || regressed.has(r.index));
        if (failing.length) lines.push("", "Failing questions:");
        for (const r of failing) {
          lines.push(`- ${oneLine(r.question)} (${r.status}, run ${r.runId})`);
          for (const f of r.failures) lines.push(`  ✗ ${f.expectation}: ${f.detail}`);
          for (const c of regressed.get(r.index)?.regressions ?? []) lines.push(`  ↓ ${c.kind}: ${c.detail}`);
        }
        if (e.error) lines.push("", e.error);
        lines.push("", `Inspect: ${baseUrl}/experiments/${e.id}`);
        return answer(McpExperimentOutput, lines.join("\n"), {
          experimentId: e.id,
          suite: e.suite,
          suiteVersion: e.suiteVersion,
          status: e.status,
          totals: e.totals,
          baseline: cmp
            ? { id: cmp.base.id, regressions: cmp.totals.regressions, improvements: cmp.totals.improvements }
            : null,
          failing: failing.map((r) => ({
            index: r.index,
            question: r.question,
            status: r.status,
            runId: r.runId,
            failures: r.failures,
            regressions: (regressed.get(r.index)?.regressions ?? []).map((c) => ({ kind: c.kind, detail: c.detail })),
            inspector: r.runId ? `${baseUrl}/runs/${r.runId}` : null,
          })),
          error: e.error,
          links: { inspector: `${baseUrl}/experiments/${e.id}` },
        });
      }),
  );

  // The tool list never changes at run time, and a stateless HTTP server could not send the
  // notification anyway: do not advertise `tools.listChanged` (the SDK sets it on registerTool).
  server.server.registerCapabilities({ tools: { listChanged: false } });
  assertServesListedTools(server);
  return server;
}

/**
 * The tools registered are exactly MCP_TOOL_NAMES, the list the CLI's help prints: a tool added
 * or removed here without the list fails every server start (and the tests) instead of drifting.
 */
function assertServesListedTools(server: McpServer): void {
  const registered = (server as unknown as { _registeredTools?: Record<string, unknown> })._registeredTools;
  if (!registered)
    throw new Error("@modelcontextprotocol/sdk no longer has McpServer._registeredTools: update lib/server/mcp.ts");
  const served = Object.keys(registered).sort();
  const listed = [...MCP_TOOL_NAMES].sort();
  if (served.join() !== listed.join()) {
    throw new Error(
      `MCP tools served (${served.join(", ")}) differ from MCP_TOOL_NAMES (${listed.join(", ")}) in lib/contracts/mcp-tools.ts`,
    );
  }
}

function oneLine(value: string): string {
  const flat = value.replace(/\s+/g, " ").trim();
  return flat.length > 400 ? `${flat.slice(0, 399)}…` : flat;
}

/** One line per hit, for the agent to read: id, what it is, and its text on one line. */
function recallLines(found: RecallResult): string[] {
  switch (found.tier) {
    case "raw_facts":
      return found.memories.flatMap((f) => {
        const when = f.occurredAt ? ` ${f.occurredAt.slice(0, 10)}` : "";
        const tags = f.tags.length ? ` #${f.tags.join(" #")}` : "";
        const who = f.speaker ? ` ${f.speaker}:` : "";
        const around = [f.context?.before, f.context?.after]
          .filter((t) => t)
          .map((t) => `    context [${t!.id}]${t!.speaker ? ` ${t!.speaker}:` : ""} ${oneLine(t!.text)}`);
        return [`- [${f.id}] (${f.kind}${when}${tags})${who} ${oneLine(f.text)}`, ...around];
      });
    case "observations":
      return found.observations.map(
        (o) => `- [${o.id}] ${oneLine(o.text)} (from ${o.sourceFactIds.join(", ") || "no facts"})`,
      );
    case "mental_models":
      return found.mentalModels.map(
        (m) => `- [${m.id}] ${m.name} (${m.isStale ? `stale: ${m.stalenessReason}` : "fresh"}) ${oneLine(m.content)}`,
      );
  }
}
