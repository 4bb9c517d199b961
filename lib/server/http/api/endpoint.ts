/**
 * One API endpoint = one declaration: method, OpenAPI path, and the zod schemas of its params,
 * query, body and responses. Route handlers validate with it (handle.ts) and the OpenAPI document
 * is generated from the same objects (openapi.ts), so documentation cannot drift from behaviour.
 */
import type { z } from "zod";
import type { WorkClass } from "../../runtime/admission";

export type HttpMethod = "GET" | "POST" | "PUT" | "DELETE";

export interface ResponseSpec {
  description: string;
  /** Omitted for empty bodies (204). */
  schema?: z.ZodType;
  /** Defaults to application/json. */
  contentType?: string;
  /** The same response in another media type, chosen by the request's Accept header. */
  alternative?: { contentType: string; description: string };
  /** Headers this response sends: `required` ones always, the others when the description says. */
  headers?: Record<string, { description: string; required?: boolean }>;
}

export interface Endpoint {
  method: HttpMethod;
  /** OpenAPI form relative to /api/v1, e.g. `/banks/{bank}/reflect`. */
  path: string;
  operationId: string;
  summary: string;
  /** What the operation does and how, for the OpenAPI document (required: Spectral's `operation-description`). */
  description: string;
  tag:
    | "banks"
    | "reflect"
    | "memory"
    | "mental-models"
    | "skills"
    | "runs"
    | "suites"
    | "experiments"
    | "benchmarks"
    | "meta";
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** The same body in another media type the route also takes (chosen by the request's Content-Type). */
  bodyAlternative?: { contentType: string; description: string };
  /**
   * The handler validates the raw body itself (the bundle import: by bundle path, holding its
   * admission slot), so `handle` only reads it as JSON: `body` stays the schema the docs show.
   */
  bodyCheckedByHandler?: boolean;
  /** The admission class whose full queue refuses the request before its body is read; the service takes the slot (lib/server/runtime/admission.ts). */
  admission?: WorkClass;
  /** Largest accepted request body; bigger ones get 413. */
  maxBodyBytes?: number;
  responses: Record<number, ResponseSpec>;
}

export const defineEndpoint = <const E extends Endpoint>(endpoint: E): E => endpoint;
