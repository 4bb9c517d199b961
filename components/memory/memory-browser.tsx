"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { usePathname, useRouter } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { Tab, TabList, TabPanel, Tabs } from "@/components/ui/tabs";
import { memoryKeys, memoryUrl } from "@/lib/client/memory";
import { getJson } from "@/lib/client/unwrap";
import type { BankSummary } from "@/lib/contracts/banks";
import type { MemoryPage, MemoryTier } from "@/lib/contracts/memory";
import { TIER_REGISTRY } from "@/lib/reflect/domain";
import { FactList } from "./fact-list";
import { MentalModelList } from "./mental-model-list";
import { ObservationList } from "./observation-list";

/** One tab per tier, in the registry's order (lib/reflect/domain.ts TIER_REGISTRY). */
const COUNT: Record<MemoryTier, (b: BankSummary) => number> = {
  mental_models: (b) => b.counts.mentalModels,
  observations: (b) => b.counts.observations,
  raw_facts: (b) => b.counts.facts,
};
const TABS = TIER_REGISTRY.map((t) => ({
  tier: t.id,
  label: t.label.charAt(0).toUpperCase() + t.label.slice(1),
  count: COUNT[t.id],
}));

export function MemoryBrowser({
  bank,
  initialTier,
  initialQuery,
  initialPage,
  focusId: linkedId,
}: {
  bank: BankSummary;
  initialTier: MemoryTier;
  initialQuery: string;
  initialPage: MemoryPage;
  /** A link named one memory (from a run's memory card): show only it until the user asks for all. */
  focusId: string | null;
}) {
  const router = useRouter();
  const pathname = usePathname();
  const [tier, setTier] = useState(initialTier);
  const [input, setInput] = useState(initialQuery);
  const [query, setQuery] = useState(initialQuery);
  const [focusId, setFocusId] = useState(linkedId);
  const focusTier = useRef(initialTier);

  // Debounce typing; keep the URL shareable.
  useEffect(() => {
    const t = setTimeout(() => setQuery(input.trim()), 200);
    return () => clearTimeout(t);
  }, [input]);
  useEffect(() => {
    const params = new URLSearchParams({ bank: bank.id, tier, ...(query ? { q: query } : {}) });
    if (focusId) params.set("id", focusId);
    router.replace(`${pathname}?${params}`, { scroll: false });
  }, [bank.id, tier, query, focusId, pathname, router]);
  // Searching or moving to another tier leaves the one linked memory for the list.
  useEffect(() => {
    if (query !== initialQuery || tier !== focusTier.current) setFocusId(null);
  }, [query, tier, initialQuery]);

  const page = useQuery({
    queryKey: [...memoryKeys.tier(bank.id, tier, query), focusId],
    queryFn: () => getJson<MemoryPage>(memoryUrl(bank.id, tier, query, focusId)),
    initialData: tier === initialTier && query === initialQuery && focusId === linkedId ? initialPage : undefined,
    placeholderData: keepPreviousData,
  });
  const data = page.data;

  return (
    <Tabs value={tier} onValueChange={(v) => setTier(v as MemoryTier)} asChild>
      <section>
        <div className="mb-3 flex flex-wrap items-end gap-2 border-b border-slate-200">
          <TabList aria-label="Memory tiers">
            {TABS.map((t) => (
              <Tab key={t.tier} value={t.tier} data-testid={`tier-tab-${t.tier}`}>
                {t.label} <span className="font-normal text-slate-500 tabular-nums">{t.count(bank)}</span>
              </Tab>
            ))}
          </TabList>
          <Input
            type="search"
            aria-label="Search this tier"
            data-testid="memory-search"
            value={input}
            onChange={(e) => setInput(e.target.value)}
            placeholder="Search (BM25)…"
            className="mb-1 ml-auto w-full sm:w-72 py-1"
          />
        </div>
        {focusId && (
          <p
            className="mb-2 flex items-center gap-2 rounded border border-indigo-200 bg-indigo-50 px-2 py-1 text-xs text-indigo-900"
            data-testid="memory-focus"
          >
            {focusId.includes(",") ? (
              <>Showing the {focusId.split(",").length} memories the link named.</>
            ) : (
              <>
                Showing <span className="font-mono">{focusId}</span>, the memory the link named.
              </>
            )}
            <Button variant="link" onClick={() => setFocusId(null)} className="ml-auto">
              Show all
            </Button>
          </p>
        )}
        {TABS.map((t) => (
          <TabPanel key={t.tier} value={t.tier}>
            {page.error ? (
              <p className="text-red-700" role="alert">
                {page.error.message}
              </p>
            ) : null}
            {data && data.tier === tier ? (
              <div className={page.isFetching ? "opacity-70" : undefined}>
                {data.items.length === 0 ? (
                  <p className="rounded border border-dashed border-slate-300 p-6 text-center text-slate-500">
                    {focusId ? `No memory ${focusId} in this tier any more.` : `Nothing matches “${query}”.`}
                  </p>
                ) : data.tier === "mental_models" ? (
                  <MentalModelList items={data.items} />
                ) : data.tier === "observations" ? (
                  <ObservationList items={data.items} permittedTeams={bank.permittedTeams} bankId={bank.id} />
                ) : (
                  <FactList items={data.items} permittedTeams={bank.permittedTeams} />
                )}
              </div>
            ) : (
              <p className="text-slate-500">Loading…</p>
            )}
          </TabPanel>
        ))}
      </section>
    </Tabs>
  );
}
