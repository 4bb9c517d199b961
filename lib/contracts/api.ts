/** Shapes of the HTTP API that belong to no entity. */
import { z } from "zod";

/** GET /api/v1/openapi.json: an OpenAPI 3.1 document. */
export const OpenApiDocument = z.record(z.string(), z.unknown());
