"use server";

import { cookies, headers } from "next/headers";
import { redirect } from "next/navigation";
import { inspectorToken, SESSION_COOKIE, safeEqual, safeNextPath, sessionValue } from "@/lib/server/http/auth";
import { clientKey, lockedFor, recordFailure, recordSuccess } from "@/lib/server/http/auth-throttle";

/** Checks the token and sets the session cookie (an HMAC of the token, httpOnly, SameSite=Strict). */
export async function loginAction(form: FormData): Promise<void> {
  // Anything but the login form's data (a hand-made action call) goes back to the form.
  if (!(form instanceof FormData)) redirect("/login?error=1");
  const next = safeNextPath(form.get("next"));
  const token = inspectorToken();
  if (!token) redirect(next);
  const client = clientKey(await headers());
  // Wrong tokens are throttled here as on the API: a locked-out client's guess is not even checked.
  if (lockedFor(client) > 0) redirect(`/login?error=wait&next=${encodeURIComponent(next)}`);
  if (!safeEqual(String(form.get("token") ?? ""), token)) {
    recordFailure(client);
    redirect(`/login?error=1&next=${encodeURIComponent(next)}`);
  }
  recordSuccess(client);
  // Plain-HTTP deployments (a LAN address) must still get the cookie; behind TLS it is Secure.
  const secure = (await headers()).get("x-forwarded-proto") === "https";
  (await cookies()).set(SESSION_COOKIE, sessionValue(token), {
    httpOnly: true,
    sameSite: "strict",
    secure,
    path: "/",
    maxAge: 60 * 60 * 24 * 30,
  });
  redirect(next);
}
