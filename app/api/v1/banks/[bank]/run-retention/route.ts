import { endpoints } from "@/lib/server/http/api/endpoints";
import { handle } from "@/lib/server/http/api/handle";
import { otherMethods } from "@/lib/server/http/api/methods";
import { readRunRetention, saveRunRetention } from "@/lib/server/services/retention";

export const dynamic = "force-dynamic";

export const GET = handle(endpoints.getRunRetention, async ({ db, params }) =>
  Response.json(await readRunRetention(db, params.bank)),
);

export const PUT = handle(endpoints.setRunRetention, async ({ db, params, body }) =>
  Response.json(await saveRunRetention(db, params.bank, body)),
);

export const DELETE = handle(endpoints.deleteRunRetention, async ({ db, params }) => {
  await saveRunRetention(db, params.bank, null);
  return new Response(null, { status: 204 });
});

export const { POST, PATCH, OPTIONS } = otherMethods("GET", "PUT", "DELETE");
