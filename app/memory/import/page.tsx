import Link from "next/link";
import { ImportForms } from "@/components/memory/import-forms";
import { BUNDLE_MAX_BYTES } from "@/lib/server/http/api/endpoints";
import { readImportOrigins } from "@/lib/server/services/hindsight-import";

export const dynamic = "force-dynamic";

/** "Import a bank": a bundle file, or a bank read from a Hindsight server (docs/curation.md#import-a-bank). */
export default function ImportBankPage() {
  // Read per request, as the import route reads it: the page says what the route will allow.
  const { origins, unusable } = readImportOrigins(process.env);
  return (
    <div>
      <div className="mb-3 flex flex-wrap items-baseline gap-x-3 gap-y-1">
        <h1 className="font-semibold text-lg">Import a bank</h1>
        <span className="text-2xs text-slate-500">
          All or nothing: a failed import changes nothing. The same import as{" "}
          <code className="font-mono">npm run cli -- import</code> and{" "}
          <code className="font-mono">POST /api/v1/banks/import</code>.
        </span>
        <Link href="/memory" className="ml-auto text-xs text-indigo-700 underline">
          Back to memory
        </Link>
      </div>
      <ImportForms hindsightOrigins={origins} ignoredEntries={unusable} bundleMaxBytes={BUNDLE_MAX_BYTES} />
    </div>
  );
}
