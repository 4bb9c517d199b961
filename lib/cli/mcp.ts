/**
 * `npm run cli -- mcp`: the MCP server over stdio, for agents that spawn their tools (Claude
 * Desktop, Claude Code, Cursor…). stdout carries the protocol only; logs go to stderr.
 */
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createMcpServer } from "@/lib/server/http/mcp";
import { getCliDb } from "@/lib/server/runtime/db";
import { toAppError } from "@/lib/server/runtime/errors";
import { usageError } from "./args";
import { type CliIo, warn } from "./io";

export async function mcpCommand(argv: string[], io: CliIo): Promise<void> {
  if (argv.length > 0) throw usageError("usage: mcp (no arguments; configure with DATABASE_URL, REFLECT_LLM…)");
  // Open the database before announcing ready: a bad DATABASE_URL is said once, on stderr, and
  // every tool call answers with the same one line as a tool error (until the database opens).
  const unavailable = await getCliDb().then(
    () => null,
    (err: unknown) => toAppError(err),
  );
  if (unavailable) warn(io, `error: ${unavailable.message} (the tools will answer with this error)`);
  const server = createMcpServer({ getDb: getCliDb });
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
  });
  await server.connect(transport);
  // The client closing our stdin is the end of the session.
  process.stdin.once("end", () => {
    server.close().catch(() => {});
  });
  warn(io, "reflect-inspector MCP server ready on stdio");
  await closed;
}
