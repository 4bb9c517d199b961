/**
 * The OpenAPI 3.1 document of /api/v1, generated from the endpoint declarations with zod 4's
 * `z.toJSONSchema`. Request schemas are rendered as clients send them (`io: "input"`: defaults make
 * fields optional), response schemas as the server returns them (`io: "output"`).
 */
import { z } from "zod";
import type { Endpoint } from "./endpoint";
import { endpoints, NAMED_SCHEMAS } from "./endpoints";

/** Every tag an endpoint may carry, described once (Spectral's `operation-tag-defined`). */
const TAGS: { name: Endpoint["tag"]; description: string }[] = [
  { name: "banks", description: "Memory banks: list them, import and export them as bundles." },
  { name: "memory", description: "Raw facts without a run: search them (recall) and store new ones (retain)." },
  { name: "mental-models", description: "Curated summaries the engine reads first; versioned, with staleness." },
  { name: "meta", description: "This API's own description." },
  { name: "reflect", description: "Ask a question: the reflect loop searches the tiers and answers with citations." },
  {
    name: "runs",
    description: "Stored runs: list, follow live, read the event log, export as an OpenTelemetry trace.",
  },
  { name: "skills", description: "How the engine answers: mission, disposition, retrieval defaults and budget." },
  {
    name: "suites",
    description: "Question suites: versioned questions with expectations, imported and exported as JSONL.",
  },
  {
    name: "benchmarks",
    description:
      "Public benchmarks (LoCoMo) imported as banks and suites, to run as experiments and score per category.",
  },
  {
    name: "experiments",
    description: "Run a suite under one configuration (current state or a draft), follow it, cancel it, compare two.",
  },
];

const ERROR_REF = { $ref: "#/components/schemas/Error" };

/** Responses every operation can give, whatever it does. */
const SHARED_RESPONSES = {
  Unauthorized: {
    description: "INSPECTOR_TOKEN is set and the request carries neither it as a bearer token nor the login cookie",
    headers: {
      "WWW-Authenticate": {
        description: 'always `Bearer realm="reflect-inspector"`',
        schema: { type: "string" },
      },
    },
    content: { "application/json": { schema: ERROR_REF } },
  },
  Internal: {
    description:
      "an unexpected failure (code `internal`); the message is generic and the details are in the server log",
    content: { "application/json": { schema: ERROR_REF } },
  },
  Unavailable: {
    description: "the database cannot be opened (code `unavailable`); the server log names the path and the cause",
    content: { "application/json": { schema: ERROR_REF } },
  },
  Forbidden: {
    description:
      "refused by the request policy (SECURITY.md): a Host that is neither loopback nor INSPECTOR_PUBLIC_URL's (code `forbidden_host`), a write from another origin (`forbidden_origin`), or a team scope the bank does not permit (`scope_not_permitted`)",
    content: { "application/json": { schema: ERROR_REF } },
  },
  BadQuery: {
    description:
      "a query parameter this operation does not list, or one given twice (code `invalid_input`; the message names the parameters it takes)",
    content: { "application/json": { schema: ERROR_REF } },
  },
  UnsupportedMediaType: {
    description: "a write without `Content-Type: application/json` (code `unsupported_media_type`)",
    content: { "application/json": { schema: ERROR_REF } },
  },
  TooManyRequests: {
    description: "too many wrong tokens from this client (code `too_many_requests`)",
    headers: {
      "Retry-After": { description: "seconds to wait before the next attempt", schema: { type: "integer" } },
    },
    content: { "application/json": { schema: ERROR_REF } },
  },
};

type JsonSchema = Record<string, unknown>;

const pascal = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });

/** Renders a registry's schemas as components; `$id`/`$schema` are noise inside OpenAPI. */
function components(registry: z.core.$ZodRegistry<{ id: string }>, io: "input" | "output"): Record<string, JsonSchema> {
  const { schemas } = z.toJSONSchema(registry, {
    io,
    target: "draft-2020-12",
    unrepresentable: "any",
    uri: (id) => `#/components/schemas/${id}`,
  });
  return Object.fromEntries(
    Object.entries(schemas).map(([id, { $id: _id, $schema: _schema, ...schema }]) => [id, schema as JsonSchema]),
  );
}

function parameters(where: "path" | "query", schema: z.ZodObject | undefined) {
  if (!schema) return [];
  const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as {
    properties?: Record<string, JsonSchema>;
    required?: string[];
  };
  return Object.entries(json.properties ?? {}).map(([name, { description, ...property }]) => ({
    name,
    in: where,
    required: where === "path" || (json.required ?? []).includes(name),
    ...(description ? { description } : {}),
    schema: property,
  }));
}

export function buildOpenApiDocument() {
  const requests = z.registry<{ id: string }>();
  const responses = z.registry<{ id: string }>();
  for (const [schema, id] of NAMED_SCHEMAS) responses.add(schema, { id });
  const paths: Record<string, Record<string, unknown>> = {};

  for (const endpoint of Object.values(endpoints) as Endpoint[]) {
    const op = pascal(endpoint.operationId);
    let requestBody: unknown;
    if (endpoint.body) {
      requests.add(endpoint.body, { id: `${op}Body` });
      const alt = endpoint.bodyAlternative;
      requestBody = {
        required: true,
        content: {
          "application/json": { schema: ref(`${op}Body`) },
          ...(alt ? { [alt.contentType]: { schema: { type: "string", description: alt.description } } } : {}),
        },
      };
    }
    const responseObjects = Object.fromEntries(
      Object.entries(endpoint.responses).map(([status, spec]) => {
        if (!spec.schema) return [status, { description: spec.description }];
        let id = responses.get(spec.schema)?.id;
        if (!id) {
          id = `${op}${status}`;
          responses.add(spec.schema, { id });
        }
        const content: Record<string, unknown> = { [spec.contentType ?? "application/json"]: { schema: ref(id) } };
        if (spec.alternative) {
          content[spec.alternative.contentType] = {
            schema: { type: "string", description: spec.alternative.description },
          };
        }
        const declared: Record<string, unknown> = Object.fromEntries(
          Object.entries(spec.headers ?? {}).map(([name, h]) => [
            name,
            { description: h.description, ...(h.required ? { required: true } : {}), schema: { type: "string" } },
          ]),
        );
        if (status === "503") {
          declared["Retry-After"] = { description: "seconds to wait (a full server)", schema: { type: "integer" } };
        }
        const headers = Object.keys(declared).length > 0 ? { headers: declared } : {};
        return [status, { description: spec.description, ...headers, content }];
      }),
    );
    paths[endpoint.path] = {
      ...paths[endpoint.path],
      [endpoint.method.toLowerCase()]: {
        operationId: endpoint.operationId,
        summary: endpoint.summary,
        description: endpoint.description,
        tags: [endpoint.tag],
        parameters: [...parameters("path", endpoint.params), ...parameters("query", endpoint.query)],
        ...(requestBody ? { requestBody } : {}),
        responses: {
          ...responseObjects,
          // Every operation reads its query string: an unknown or repeated parameter is refused.
          ...("400" in responseObjects ? {} : { 400: { $ref: "#/components/responses/BadQuery" } }),
          401: { $ref: "#/components/responses/Unauthorized" },
          // The request policy and the token throttle answer before any route does.
          ...("403" in responseObjects ? {} : { 403: { $ref: "#/components/responses/Forbidden" } }),
          ...(["POST", "PUT", "PATCH"].includes(endpoint.method)
            ? { 415: { $ref: "#/components/responses/UnsupportedMediaType" } }
            : {}),
          429: { $ref: "#/components/responses/TooManyRequests" },
          // Any operation can fail unexpectedly; the body is the Error schema (code `internal`).
          500: { $ref: "#/components/responses/Internal" },
          // The document itself needs no database; every other route opens it first.
          ...(endpoint.operationId === "getOpenApi" || "503" in responseObjects
            ? {}
            : { 503: { $ref: "#/components/responses/Unavailable" } }),
        },
      },
    };
  }

  return {
    openapi: "3.1.0",
    info: {
      title: "Reflect Inspector API",
      version: "1",
      description:
        "Reflect over memory banks, search and retain memories, curate mental models and skills, and follow runs. Errors are `{error: {code, message, fieldErrors?}}` (the `Error` schema). Any operation may answer 500 (code `internal`, details only in the server log). A method a path does not list answers 405 with that body, before the request's content type is looked at, (code `method_not_allowed`) and an `Allow` header naming the methods it has; OPTIONS answers 204 with the same `Allow`. A query parameter an operation does not list, or one given twice, is refused with 400 (code `invalid_input`) naming the parameters the operation takes; it is never ignored.",
      contact: { name: "Reflect Inspector maintainers (see the README)" },
      // Not open source: SPDX's form for a license without an identifier of its own.
      license: { name: "Proprietary (all rights reserved)", identifier: "LicenseRef-Proprietary" },
    },
    tags: TAGS,
    servers: [{ url: "/api/v1" }],
    security: [{}, { bearer: [] }],
    paths,
    components: {
      securitySchemes: {
        bearer: {
          type: "http",
          scheme: "bearer",
          description: "INSPECTOR_TOKEN; required only when the server was started with one",
        },
      },
      responses: SHARED_RESPONSES,
      schemas: { ...components(responses, "output"), ...components(requests, "input") },
    },
  };
}
