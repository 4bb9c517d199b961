import Link from "next/link";

export interface ProviderBadge {
  kind: string;
  model: string;
  baseUrlHost?: string;
}

const LINKS = [
  { href: "/memory", label: "Memory" },
  { href: "/mental-models", label: "Mental models" },
  { href: "/skills", label: "Skills" },
  { href: "/runs", label: "Runs" },
  { href: "/runs/compare", label: "Compare" },
  { href: "/suites", label: "Suites" },
  { href: "/runs/new", label: "New run" },
  { href: "/glossary", label: "Glossary" },
];

export function AppNav({ provider }: { provider: ProviderBadge }) {
  const label = provider.kind === "offline" ? "offline model" : `${provider.model} · ${provider.baseUrlHost ?? ""}`;
  return (
    <header className="border-b border-slate-200 bg-white">
      <nav
        className="mx-auto flex min-h-11 max-w-[1600px] flex-wrap items-center gap-x-5 gap-y-1 px-4 py-2"
        aria-label="Main"
      >
        <Link href="/" className="font-semibold tracking-tight text-slate-900">
          Reflect Inspector
        </Link>
        {LINKS.map((l) => (
          <Link key={l.href} href={l.href} className="text-slate-600 hover:text-slate-900">
            {l.label}
          </Link>
        ))}
        <Link
          href="/model"
          className="ml-auto rounded border border-slate-200 bg-slate-50 px-2 py-0.5 font-mono text-2xs text-slate-600 hover:text-slate-900"
          data-testid="provider-status"
          title="Model used for new runs: open its settings and check what the server can do"
        >
          {label}
        </Link>
      </nav>
    </header>
  );
}
