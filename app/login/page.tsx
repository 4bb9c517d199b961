import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { safeNextPath } from "@/lib/server/http/auth";
import { loginAction } from "./actions";

export const dynamic = "force-dynamic";

export default async function LoginPage({
  searchParams,
}: {
  searchParams: Promise<{ next?: string; error?: string }>;
}) {
  const { next, error } = await searchParams;
  return (
    <section className="mx-auto mt-16 max-w-sm rounded border border-zinc-200 bg-white p-6 shadow-sm">
      <h1 className="text-lg font-semibold">Sign in</h1>
      <p className="mt-1 text-sm text-zinc-600">This inspector is protected by an access token (INSPECTOR_TOKEN).</p>
      <form action={loginAction} className="mt-4 flex flex-col gap-3">
        <input type="hidden" name="next" value={safeNextPath(next)} />
        <label className="flex flex-col gap-1 text-sm">
          Access token
          <Input
            name="token"
            type="password"
            required
            autoComplete="current-password"
            data-testid="login-token"
            className="py-1 text-sm"
          />
        </label>
        {error ? (
          <p role="alert" className="text-sm text-red-700">
            {error === "wait" ? "Too many wrong tokens: wait a minute, then try again." : "That token is not right."}
          </p>
        ) : null}
        <Button variant="primary" size="md" type="submit" data-testid="login-submit" className="text-sm">
          Sign in
        </Button>
      </form>
    </section>
  );
}
