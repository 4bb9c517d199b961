/**
 * The MCP tools the inspector serves, by name (docs/api.md#use-it-from-an-agent-mcp). The server registers exactly these
 * (lib/server/mcp.ts refuses to start otherwise) and the CLI's help lists them from here, so the
 * help cannot name a tool that is not served or miss one that is. No imports: `--help` loads this.
 */
export const MCP_TOOL_NAMES = ["memory_reflect", "memory_recall", "memory_retain", "memory_experiment"] as const;
export type McpToolName = (typeof MCP_TOOL_NAMES)[number];
