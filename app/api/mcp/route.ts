/**
 * MCP over Streamable HTTP, stateless: each POST gets its own server and transport, so any
 * instance can answer any request and nothing leaks between clients.
 */
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { isAppError } from "@/lib/contracts/errors";
import { DEFAULT_MAX_BODY_BYTES, readBody } from "@/lib/server/http/api/handle";
import { createMcpServer } from "@/lib/server/http/mcp";
import { mcpRebindingOptions } from "@/lib/server/http/request-policy";
import { getAppDb } from "@/lib/server/runtime/db";

export const dynamic = "force-dynamic";

/** SECURITY.md's cap for API bodies holds for MCP too. */
const MCP_MAX_BODY_BYTES = DEFAULT_MAX_BODY_BYTES;

export async function POST(request: Request) {
  // JSON-RPC only: anything else is refused before the body is read, as a JSON-RPC error.
  const type = (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/json") {
    return Response.json(
      {
        jsonrpc: "2.0",
        error: {
          code: -32000,
          message: `Unsupported Media Type: send JSON-RPC as application/json (got "${type.slice(0, 100)}").`,
        },
        id: null,
      },
      { status: 415 },
    );
  }
  // The SDK would decode the body leniently (bad bytes become U+FFFD and get stored): decode it
  // strictly here, under the documented 1 MB cap (read with a running count, so a body without
  // Content-Length is cut off too), and hand the SDK the parsed message.
  let parsedBody: unknown;
  try {
    parsedBody = await readBody(request, MCP_MAX_BODY_BYTES);
  } catch (err) {
    const tooLarge = isAppError(err, "body_too_large");
    const message = isAppError(err) ? err.message : "The request body is not JSON.";
    return Response.json(
      { jsonrpc: "2.0", error: { code: tooLarge ? -32600 : -32700, message }, id: null },
      { status: tooLarge ? 413 : 400 },
    );
  }
  // One message per request: a batch would start any number of runs past the admission check.
  if (Array.isArray(parsedBody)) {
    return Response.json(
      {
        jsonrpc: "2.0",
        error: { code: -32600, message: "JSON-RPC batches are not accepted: send one message per request." },
        id: null,
      },
      { status: 400 },
    );
  }
  const server = createMcpServer({
    getDb: getAppDb,
    // Links point back at the host the agent reached, unless a public URL is configured.
    publicUrl: process.env.INSPECTOR_PUBLIC_URL || requestOrigin(request),
  });
  // JSON responses (no SSE) let the handler finish the whole exchange before closing.
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    // The proxy already refused foreign hosts and origins; the SDK's own check is the second lock.
    ...mcpRebindingOptions(request.headers.get("host")),
  });
  try {
    await server.connect(transport);
    return await transport.handleRequest(request, { parsedBody });
  } finally {
    await server.close();
  }
}

/** The origin the agent used (Next rewrites `request.url` to localhost behind its server). */
function requestOrigin(request: Request): string {
  const url = new URL(request.url);
  const host = request.headers.get("x-forwarded-host") ?? request.headers.get("host");
  const proto = request.headers.get("x-forwarded-proto") ?? url.protocol.slice(0, -1);
  return host ? `${proto}://${host}` : url.origin;
}

/** Stateless: no standalone SSE stream to open and no session to delete; every other method is refused too. */
function methodNotAllowed() {
  return Response.json(
    { jsonrpc: "2.0", error: { code: -32000, message: "Method not allowed: POST JSON-RPC to /api/mcp." }, id: null },
    { status: 405, headers: { allow: "POST" } },
  );
}

export const GET = methodNotAllowed;
export const DELETE = methodNotAllowed;
export const PUT = methodNotAllowed;
export const PATCH = methodNotAllowed;
