/**
 * The inspector as an MCP server: `memory_reflect` runs the reflect engine (every call becomes a
 * stored, inspectable run), `memory_recall` searches raw facts, `memory_retain` stores new facts.
 * One factory serves both transports (Streamable HTTP at /api/mcp, stdio via the CLI).
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { getBank } from "@/db/banks";
import type { Db } from "@/db/client";
import { createMemoryStore } from "@/db/memory-store";
import { getRunEvents } from "@/db/runs";
import type { ModelPort } from "@/lib/reflect";
import type { ScopeValue } from "@/lib/reflect/domain";
import { ScopeNotPermittedError } from "@/lib/reflect/errors";
import { foldRun } from "@/lib/timeline/fold";
import { ServiceError } from "./action";
import { retainFacts } from "./retain";
import { startRun } from "./runs";

export const DEFAULT_MCP_BANK = "demo";
const DEFAULT_PUBLIC_URL = "http://127.0.0.1:3000";

export interface McpServerOptions {
  getDb: () => Promise<Db>;
  /** Base of the run links handed to the agent; defaults to INSPECTOR_PUBLIC_URL, then localhost:3000. */
  publicUrl?: string;
  model?: ModelPort;
}

// Plain strings (no zod transforms) so the SDK can publish these as JSON Schema.
const scopeField = z
  .string()
  .regex(/^(personal|team:[a-z0-9][a-z0-9_-]*)$/, 'scope must be "personal" or "team:<id>"')
  .optional()
  .describe('"personal" (default) or "team:<id>" when the bank permits that team');
const bankField = z.string().min(1).optional().describe(`memory bank id (default "${DEFAULT_MCP_BANK}")`);

export function inspectorUrl(publicUrl: string | undefined): string {
  return (publicUrl ?? process.env.INSPECTOR_PUBLIC_URL ?? DEFAULT_PUBLIC_URL).replace(/\/+$/, "");
}

const text = (value: string): CallToolResult => ({ content: [{ type: "text", text: value }] });
const failure = (message: string): CallToolResult => ({ content: [{ type: "text", text: message }], isError: true });

/** Expected failures (unknown bank or skill, forbidden scope) go back to the agent as tool errors. */
async function guarded(fn: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ServiceError || err instanceof ScopeNotPermittedError) return failure(err.message);
    throw err;
  }
}

async function requireBank(db: Db, bankId: string) {
  const bank = await getBank(db, bankId);
  if (!bank) throw new ServiceError("not_found", `unknown bank "${bankId}"`);
  return bank;
}

export function createMcpServer(options: McpServerOptions): McpServer {
  const server = new McpServer({ name: "reflect-inspector", version: "0.1.0" });
  const baseUrl = inspectorUrl(options.publicUrl);

  server.registerTool(
    "memory_reflect",
    {
      title: "Reflect over a memory bank",
      description:
        "Answer a question from a memory bank: searches mental models, observations and raw facts, then returns a " +
        "grounded answer with the memories it cites and a link to inspect the run step by step.",
      inputSchema: {
        question: z.string().trim().min(1).max(4000).describe("the question to answer"),
        bank: bankField,
        skill: z.string().min(1).optional().describe("skill name, e.g. recap, decisions, actionables, blockers, prep"),
        budget: z.enum(["low", "mid", "high"]).optional().describe("iteration budget: low 5, mid 10, high 20"),
        scope: scopeField,
        mode: z.enum(["synthesize", "facts"]).optional().describe("facts = return the retrieved facts, no LLM"),
      },
      annotations: { readOnlyHint: false, openWorldHint: false },
    },
    (args) =>
      guarded(async () => {
        const db = await options.getDb();
        const { runId, finished } = await startRun(
          db,
          {
            bankId: args.bank ?? DEFAULT_MCP_BANK,
            question: args.question,
            skill: args.skill,
            budget: args.budget,
            scope: args.scope,
            mode: args.mode ?? "synthesize",
          },
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
        return text(lines.join("\n"));
      }),
  );

  server.registerTool(
    "memory_recall",
    {
      title: "Recall raw facts",
      description: "Search a memory bank's raw facts (BM25, plus vectors when configured). Returns facts with ids.",
      inputSchema: {
        query: z.string().trim().min(1).max(1000).describe("what to search for"),
        bank: bankField,
        scope: scopeField,
        tags: z.array(z.string().min(1)).optional().describe("only facts carrying all of these tags"),
        limit: z.number().int().min(1).max(100).optional().describe("maximum facts (default 20)"),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      guarded(async () => {
        const db = await options.getDb();
        const bankId = args.bank ?? DEFAULT_MCP_BANK;
        await requireBank(db, bankId);
        const hits = await createMemoryStore(db).recall({
          bankId,
          query: args.query,
          limit: args.limit ?? 20,
          tags: args.tags ?? [],
          scope: (args.scope ?? "personal") as ScopeValue,
        });
        if (hits.length === 0) return text(`No facts in bank "${bankId}" match "${args.query}".`);
        const lines = hits.map((f) => {
          const when = f.occurredAt ? ` ${f.occurredAt.slice(0, 10)}` : "";
          const tags = f.tags.length ? ` #${f.tags.join(" #")}` : "";
          return `- [${f.id}] (${f.kind}${when}${tags}) ${oneLine(f.text)}`;
        });
        return text(`${hits.length} fact(s) from bank "${bankId}":\n${lines.join("\n")}`);
      }),
  );

  server.registerTool(
    "memory_retain",
    {
      title: "Retain facts",
      description:
        "Store new raw facts in a memory bank. Mental models whose scope covers them become stale until refreshed.",
      inputSchema: {
        bank: bankField,
        facts: z
          .array(
            z.object({
              text: z.string().trim().min(1).max(4000),
              kind: z.enum(["world", "experience"]).optional().describe("world (default) or experience"),
              tags: z.array(z.string().min(1)).optional(),
              scope: scopeField,
              occurredAt: z.iso.datetime({ offset: true }).optional().describe("ISO-8601 time the fact happened"),
            }),
          )
          .min(1)
          .max(100),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
    },
    (args) =>
      guarded(async () => {
        const db = await options.getDb();
        const bankId = args.bank ?? DEFAULT_MCP_BANK;
        await requireBank(db, bankId);
        const result = await retainFacts(db, bankId, {
          facts: args.facts.map((f) => ({
            text: f.text,
            kind: f.kind ?? "world",
            tags: f.tags ?? [],
            scope: f.scope ?? "personal",
            occurredAt: f.occurredAt ?? null,
          })),
        });
        const stale = result.staleMentalModels.map((m) => m.name);
        return text(
          `Retained ${result.inserted.length} fact(s) in bank "${bankId}": ${result.inserted.join(", ")}` +
            (stale.length ? `\nNow stale (refresh them): ${stale.join(", ")}` : ""),
        );
      }),
  );

  return server;
}

function oneLine(value: string): string {
  const flat = value.replace(/\s+/g, " ").trim();
  return flat.length > 400 ? `${flat.slice(0, 399)}…` : flat;
}
