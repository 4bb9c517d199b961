import { bankList } from "@/lib/server/http/api/banks";
import { endpoints } from "@/lib/server/http/api/endpoints";
import { handle } from "@/lib/server/http/api/handle";
import { otherMethods } from "@/lib/server/http/api/methods";

export const dynamic = "force-dynamic";

export const GET = handle(endpoints.listBanks, async ({ db }) => Response.json(await bankList(db)));

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods("GET");
