/**
 * The headers that contain what a browser does with our pages (SECURITY.md "What the browser renders
 * is contained"). Scripts run only with this response's nonce ('strict-dynamic' lets Next's own
 * bootstrap load its chunks); images come only from this site or data: URLs, so a remote image in
 * a fact or a model cannot carry data out; nothing may frame the inspector.
 */
import { randomBytes } from "node:crypto";

export function newNonce(): string {
  return randomBytes(16).toString("base64");
}

export function contentSecurityPolicy(nonce: string, dev = process.env.NODE_ENV !== "production"): string {
  return [
    "default-src 'self'",
    // React's dev overlay evaluates code; a production build never does.
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${dev ? " 'unsafe-eval'" : ""}`,
    // Style attributes (virtualised rows, widths) are inline; styles cannot carry data out without remote URLs.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** The same on every response, pages and API alike. */
export const STATIC_SECURITY_HEADERS: Record<string, string> = {
  "x-content-type-options": "nosniff",
  "referrer-policy": "same-origin",
  "x-frame-options": "DENY",
};
