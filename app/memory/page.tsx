import Link from "next/link";
import { notFound } from "next/navigation";
import { MemoryBrowser } from "@/components/memory/memory-browser";
import { MemoryQuery } from "@/lib/contracts/memory";
import { queryValue, type SearchParams } from "@/lib/server/http/page-params";
import { getAppDb } from "@/lib/server/runtime/db";
import { bankSummary, browseMemory, defaultBankId } from "@/lib/server/services/memory";

export const dynamic = "force-dynamic";

export default async function MemoryPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const params = await searchParams;
  const db = await getAppDb();
  const bankId = queryValue(params, "bank") ?? (await defaultBankId(db));
  if (!bankId)
    return (
      <p className="text-slate-500" data-testid="no-bank">
        No bank yet:{" "}
        <Link href="/memory/import" className="text-indigo-700 underline">
          import one
        </Link>{" "}
        (a bundle file or a Hindsight server), or with{" "}
        <code className="font-mono">npm run cli -- import bundle.json</code>.
      </p>
    );
  const parsed = MemoryQuery.safeParse({
    tier: queryValue(params, "tier"),
    q: queryValue(params, "q"),
    id: queryValue(params, "id"),
  });
  const query = parsed.success ? parsed.data : MemoryQuery.parse({});
  const [bank, page] = await Promise.all([bankSummary(db, bankId), browseMemory(db, bankId, query)]);
  if (!bank || !page) notFound();
  return (
    <div>
      <div className="mb-3 flex flex-wrap items-baseline gap-x-3 gap-y-1">
        <h1 className="font-semibold text-lg" data-testid="bank-name">
          {bank.name}
        </h1>
        <span className="font-mono text-2xs text-slate-500">{bank.id}</span>
        <span className="text-2xs text-slate-500">
          scopes: {bank.scopes.join(", ")} · permitted teams: {bank.permittedTeams.join(", ") || "none"}
        </span>
        <Link
          href="/memory/import"
          className="ml-auto text-xs text-indigo-700 underline"
          data-testid="import-bank-link"
        >
          Import a bank
        </Link>
      </div>
      <MemoryBrowser
        // A link to other memories (an observation's facts) starts the browser afresh on them.
        key={query.id ?? ""}
        bank={bank}
        initialTier={query.tier}
        initialQuery={query.q}
        initialPage={page}
        focusId={query.id ?? null}
      />
    </div>
  );
}
