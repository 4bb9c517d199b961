/**
 * The OpenAPI 3.1 document of /api/v1, generated from the endpoint declarations with zod 4's
 * `z.toJSONSchema`. Request schemas are rendered as clients send them (`io: "input"`: defaults make
 * fields optional), response schemas as the server returns them (`io: "output"`).
 */
import { z } from "zod";
import type { Endpoint } from "./endpoint";
import { endpoints, NAMED_SCHEMAS } from "./endpoints";

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
      requestBody = { required: true, content: { "application/json": { schema: ref(`${op}Body`) } } };
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
        if (endpoint.operationId === "getRunEvents" && status === "200") {
          content["text/event-stream"] = {
            schema: { type: "string", description: "`id: <seq>\\nevent: <type>\\ndata: <RunEvent JSON>\\n\\n` frames" },
          };
        }
        return [status, { description: spec.description, content }];
      }),
    );
    paths[endpoint.path] = {
      ...paths[endpoint.path],
      [endpoint.method.toLowerCase()]: {
        operationId: endpoint.operationId,
        summary: endpoint.summary,
        ...(endpoint.description ? { description: endpoint.description } : {}),
        tags: [endpoint.tag],
        parameters: [...parameters("path", endpoint.params), ...parameters("query", endpoint.query)],
        ...(requestBody ? { requestBody } : {}),
        responses: {
          ...responseObjects,
          401: { description: "INSPECTOR_TOKEN is set and the request does not carry it" },
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
        "Reflect over memory banks, search and retain memories, curate mental models and skills, and follow runs. Errors are `{error: {code, message, fieldErrors?}}`.",
    },
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
      schemas: { ...components(responses, "output"), ...components(requests, "input") },
    },
  };
}
