/** The run page's "Export OTLP" link: the same handlers as /api/v1/runs/{id}/otlp. */
export { DELETE, GET, OPTIONS, PATCH, POST, PUT } from "@/app/api/v1/runs/[id]/otlp/route";

// Route config must be declared here, not re-exported (Next reads it statically).
export const dynamic = "force-dynamic";
