/**
 * Methods the WHATWG `Request` cannot carry (TRACE, TRACK, CONNECT): Next builds one for every
 * request before the proxy runs, so such a request reached nothing of ours and was answered 500.
 * The node server answers them itself: 405 with the error envelope, before Next sees them.
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { PEER_HEADER } from "./auth-throttle";

const UNSUPPORTED = new Set(["TRACE", "TRACK", "CONNECT"]);
const PATCHED = Symbol.for("reflect-inspector.refuse-unsupported-methods");

/** The answer to an unsupported method, or false when the request may go on to Next. */
export function refuseUnsupportedMethod(req: IncomingMessage, res: ServerResponse): boolean {
  const method = (req.method ?? "").toUpperCase();
  if (!UNSUPPORTED.has(method)) return false;
  const body = JSON.stringify({
    error: { code: "method_not_allowed", message: `${method} is not served here.` },
  });
  res.writeHead(405, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    allow: "GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE",
    "x-content-type-options": "nosniff",
  });
  res.end(body);
  // The request's own body (if any) is not read: drain it so the socket can be reused.
  req.resume();
  return true;
}

/**
 * Stamps the connection's remote address on the request for the proxy's throttle (Next hands the
 * proxy no socket): any value a client sent under that name is replaced.
 */
export function stampPeer(req: IncomingMessage): void {
  req.headers[PEER_HEADER] = req.socket?.remoteAddress ?? "";
}

/** Puts the refusal (and the peer stamp) in front of every http server of this process (the one `next start` made included). */
export function installMethodGuard(server: { prototype: Server }): void {
  const proto = server.prototype as Server & { [PATCHED]?: true };
  if (proto[PATCHED]) return;
  proto[PATCHED] = true;
  const emit = proto.emit;
  proto.emit = function (this: Server, event: string | symbol, ...args: unknown[]) {
    if (event === "request") {
      if (refuseUnsupportedMethod(args[0] as IncomingMessage, args[1] as ServerResponse)) return true;
      stampPeer(args[0] as IncomingMessage);
    }
    return (emit as (...a: unknown[]) => boolean).call(this, event, ...args);
  } as Server["emit"];
}
