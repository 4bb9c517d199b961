"use client";

import { useMutation } from "@tanstack/react-query";
import Link from "next/link";
import { type FormEvent, type ReactNode, useId, useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import { Field } from "@/components/ui/field";
import { Check, Input } from "@/components/ui/input";
import { bundleContentTypeOf, checkBundleFile, SNIFF_BYTES } from "@/lib/client/import";
import { postApi } from "@/lib/client/unwrap";
import type { ImportResult } from "@/lib/contracts/banks";
import { type FieldErrors, isAppError } from "@/lib/contracts/errors";
import type { HindsightImportResult } from "@/lib/contracts/hindsight";
import { plural } from "@/lib/timeline/format";

/**
 * The two ways to bring a bank in from the browser (docs/curation.md#import-a-bank): a bundle file
 * and a Hindsight server. Both call the API's import routes (the same services, limits and rules as
 * the API and the CLI); each form is busy on its own while it runs and the other stays usable.
 */
export function ImportForms({
  hindsightOrigins,
  ignoredEntries,
  bundleMaxBytes,
}: {
  hindsightOrigins: string[];
  ignoredEntries: string[];
  /** The import route's body limit (BUNDLE_MAX_BYTES). */
  bundleMaxBytes: number;
}) {
  return (
    <div className="grid grid-cols-1 items-start gap-4 lg:grid-cols-2">
      <BundleForm maxBytes={bundleMaxBytes} />
      <HindsightForm origins={hindsightOrigins} ignored={ignoredEntries} />
    </div>
  );
}

function Section({ title, label, children }: { title: string; label: string; children: ReactNode }) {
  return (
    <section className="rounded border border-slate-200 bg-white p-3" aria-label={label}>
      <h2 className="mb-2 font-semibold text-sm">{title}</h2>
      {children}
    </section>
  );
}

function memoryPageHref(bankId: string): string {
  return `/memory?bank=${encodeURIComponent(bankId)}`;
}

function countsText(c: ImportResult["counts"]): string {
  return [
    plural(c.facts, "fact"),
    plural(c.observations, "observation"),
    plural(c.mentalModels, "mental model"),
    plural(c.skills, "skill"),
    plural(c.suites, "suite"),
  ].join(", ");
}

/** The error: its message, then the values it names (a bundle's JSON paths or lines), a few at most. */
function ImportError({ error, testId }: { error: Error; testId: string }) {
  const fieldErrors: FieldErrors = isAppError(error) ? (error.details.fieldErrors ?? {}) : {};
  const named = Object.entries(fieldErrors).filter(([path]) => path !== "_");
  const shown = named.slice(0, 8);
  return (
    <div role="alert" className="mt-2 text-xs text-red-700" data-testid={testId}>
      <p>
        {error.message}
        {/* The server answered: an import is all or nothing. Unreached, it cannot be told. */}
        {isAppError(error) && error.code !== "unavailable" && !/nothing was imported/i.test(error.message)
          ? " Nothing was imported."
          : null}
      </p>
      {shown.length > 0 ? (
        <ul className="mt-1 list-disc pl-4">
          {shown.map(([path, messages]) => (
            <li key={path}>
              <span className="font-mono">{path}</span>: {messages.join("; ")}
            </li>
          ))}
          {named.length > shown.length ? <li>and {named.length - shown.length} more</li> : null}
        </ul>
      ) : null}
    </div>
  );
}

function BundleForm({ maxBytes }: { maxBytes: number }) {
  const [file, setFile] = useState<File | null>(null);
  const [replace, setReplace] = useState(false);
  const replaceId = useId();
  // Set at once on submit: two submits in one task (before React shows the busy button) send one import.
  const sending = useRef(false);
  const mutation = useMutation({
    onSettled: () => {
      sending.current = false;
    },
    mutationFn: async (input: { file: File; replace: boolean }) => {
      const refused = checkBundleFile(input.file, maxBytes);
      if (refused) throw refused;
      // Its first bytes say whether it is JSON lines or one document, whatever it is named.
      const head = await input.file.slice(0, SNIFF_BYTES).text();
      return postApi<ImportResult>(
        `/api/v1/banks/import${input.replace ? "?replace=true" : ""}`,
        // The file itself is the body: the browser streams it, nothing reads it into the page first.
        input.file,
        bundleContentTypeOf(input.file.name, head, input.file.size <= SNIFF_BYTES),
      );
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!file || sending.current) return;
    sending.current = true;
    mutation.mutate({ file, replace });
  };
  const result = mutation.data;
  return (
    <Section title="Bundle file" label="Import a bundle file">
      <form
        onSubmit={submit}
        aria-busy={mutation.isPending}
        data-testid="bundle-import-form"
        className="flex flex-col gap-2"
      >
        <Field
          label="Bundle (.json or .jsonl)"
          hint={
            <>
              What <code className="font-mono">npm run cli -- export</code> writes, or JSON lines (line 1{" "}
              <code className="font-mono">{'{"version":1,"bank":…}'}</code>, then one record a line). Up to{" "}
              {(maxBytes / 1_000_000).toLocaleString("en-US")} MB; a bigger one:{" "}
              <code className="font-mono">npm run cli -- import bundle.jsonl</code>.
            </>
          }
        >
          <Input
            type="file"
            accept=".json,.jsonl,application/json"
            className="w-full"
            onChange={(e) => setFile(e.target.files?.[0] ?? null)}
            data-testid="bundle-file"
          />
        </Field>
        <label htmlFor={replaceId} className="flex items-center gap-1.5 text-xs text-slate-700">
          <Check
            id={replaceId}
            checked={replace}
            onChange={(e) => setReplace(e.target.checked)}
            data-testid="bundle-replace"
          />
          Replace the bank if it exists (whole: its memories, models and skills; its runs are kept)
        </label>
        <div>
          <Button
            variant="primary"
            size="md"
            type="submit"
            busy={mutation.isPending}
            disabled={!file}
            data-testid="bundle-import"
          >
            {mutation.isPending ? "Importing…" : "Import bundle"}
          </Button>
        </div>
      </form>
      {mutation.error ? <ImportError error={mutation.error} testId="bundle-import-error" /> : null}
      {result && !mutation.isPending ? (
        <p role="status" className="mt-2 text-xs text-emerald-800" data-testid="bundle-import-result">
          Imported bank <span className="font-mono">{result.bankId}</span>: {countsText(result.counts)}.{" "}
          <Link
            href={memoryPageHref(result.bankId)}
            className="text-indigo-700 underline"
            data-testid="bundle-import-open"
          >
            Open its memory
          </Link>
        </p>
      ) : null}
    </Section>
  );
}

/** What the server says up front: the origins it may import from, or that it imports from none. */
function OriginsNotice({ origins, ignored, id }: { origins: string[]; ignored: string[]; id: string }) {
  const ignoredText = ignored.length ? (
    <>
      {" "}
      Entries ignored (each must be <code className="font-mono">scheme://host[:port]</code>):{" "}
      {ignored.map((e) => JSON.stringify(e)).join(", ")}.
    </>
  ) : null;
  if (origins.length === 0)
    return (
      <p
        id={id}
        className="mb-2 rounded border border-amber-200 bg-amber-50 px-2 py-1.5 text-xs text-amber-900"
        data-testid="hindsight-origins"
        data-allowed="none"
      >
        This server imports from no Hindsight server: <code className="font-mono">HINDSIGHT_IMPORT_ORIGINS</code>{" "}
        {ignored.length ? "lists no usable origin." : "is not set."} Set it to the origins to allow and restart
        (docs/hindsight.md), or use{" "}
        <code className="font-mono">npm run cli -- import --from hindsight &lt;url&gt; --bank &lt;id&gt;</code>.
        {ignoredText}
      </p>
    );
  return (
    <p id={id} className="mb-2 text-xs text-slate-600" data-testid="hindsight-origins" data-allowed={origins.join(" ")}>
      This server imports only from{" "}
      {origins.map((o, i) => (
        <span key={o}>
          {i > 0 ? ", " : ""}
          <code className="font-mono">{o}</code>
        </span>
      ))}{" "}
      (<code className="font-mono">HINDSIGHT_IMPORT_ORIGINS</code>).{ignoredText}
    </p>
  );
}

function HindsightForm({ origins, ignored }: { origins: string[]; ignored: string[] }) {
  const [baseUrl, setBaseUrl] = useState(origins.length === 1 ? origins[0]! : "");
  const [bankId, setBankId] = useState("");
  const [localBankId, setLocalBankId] = useState("");
  const [apiKey, setApiKey] = useState("");
  const [replace, setReplace] = useState(false);
  const noticeId = useId();
  const replaceId = useId();
  const sending = useRef(false);
  const mutation = useMutation({
    onSettled: () => {
      sending.current = false;
    },
    mutationFn: (body: { baseUrl: string; bankId: string; localBankId?: string; apiKey?: string; replace: boolean }) =>
      // The key goes in the JSON body only: never in the URL, never kept past this request.
      postApi<HindsightImportResult>("/api/v1/banks/import/hindsight", JSON.stringify(body), "application/json"),
    onSuccess: () => setApiKey(""),
  });
  const closed = origins.length === 0;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (closed || sending.current) return;
    sending.current = true;
    mutation.mutate({
      baseUrl: baseUrl.trim(),
      bankId: bankId.trim(),
      ...(localBankId.trim() ? { localBankId: localBankId.trim() } : {}),
      ...(apiKey ? { apiKey } : {}),
      replace,
    });
  };
  const errors: FieldErrors = isAppError(mutation.error) ? (mutation.error.details.fieldErrors ?? {}) : {};
  const result = mutation.data;
  return (
    <Section title="From a Hindsight server" label="Import from a Hindsight server">
      <OriginsNotice origins={origins} ignored={ignored} id={noticeId} />
      <form
        onSubmit={submit}
        aria-busy={mutation.isPending}
        data-testid="hindsight-import-form"
        className="flex flex-col gap-2"
      >
        <div className="grid grid-cols-1 gap-2 sm:grid-cols-2">
          <Field label="Base URL" error={errors.baseUrl}>
            <Input
              type="url"
              className="w-full"
              value={baseUrl}
              placeholder={origins[0] ?? "http://localhost:8888"}
              onChange={(e) => setBaseUrl(e.target.value)}
              disabled={closed}
              required
              data-testid="hindsight-url"
            />
          </Field>
          <Field label="Bank id on the Hindsight server" error={errors.bankId}>
            <Input
              className="w-full"
              value={bankId}
              onChange={(e) => setBankId(e.target.value)}
              disabled={closed}
              required
              data-testid="hindsight-bank"
            />
          </Field>
          <Field label="Import as (bank id here, optional)" error={errors.localBankId}>
            <Input
              className="w-full"
              value={localBankId}
              placeholder="the Hindsight id"
              onChange={(e) => setLocalBankId(e.target.value)}
              disabled={closed}
              data-testid="hindsight-as"
            />
          </Field>
          <Field
            label="API key (optional)"
            hint="Sent once as a bearer token; never stored or shown."
            error={errors.apiKey}
          >
            <Input
              type="password"
              autoComplete="off"
              className="w-full"
              value={apiKey}
              onChange={(e) => setApiKey(e.target.value)}
              disabled={closed}
              data-testid="hindsight-key"
            />
          </Field>
        </div>
        <label htmlFor={replaceId} className="flex items-center gap-1.5 text-xs text-slate-700">
          <Check
            id={replaceId}
            checked={replace}
            onChange={(e) => setReplace(e.target.checked)}
            disabled={closed}
            data-testid="hindsight-replace"
          />
          Replace the bank here if it exists
        </label>
        <div>
          <Button
            variant="primary"
            size="md"
            type="submit"
            busy={mutation.isPending}
            disabled={closed || !baseUrl.trim() || !bankId.trim()}
            aria-describedby={closed ? noticeId : undefined}
            data-testid="hindsight-import"
          >
            {mutation.isPending ? "Importing…" : "Import from Hindsight"}
          </Button>
        </div>
      </form>
      {mutation.error ? <ImportError error={mutation.error} testId="hindsight-import-error" /> : null}
      {result && !mutation.isPending ? <HindsightResult result={result} /> : null}
    </Section>
  );
}

function HindsightResult({ result }: { result: HindsightImportResult }) {
  return (
    <div className="mt-2 text-xs" data-testid="hindsight-import-result">
      <p role="status" className="text-emerald-800">
        Imported bank <span className="font-mono">{result.bankId}</span> from{" "}
        <span className="font-mono">{result.source.baseUrl}</span> bank{" "}
        <span className="font-mono">{result.source.bankId}</span>: {countsText(result.counts)} (
        {plural(result.requests, "request")}).{" "}
        <Link
          href={memoryPageHref(result.bankId)}
          className="text-indigo-700 underline"
          data-testid="hindsight-import-open"
        >
          Open its memory
        </Link>
      </p>
      {result.skipped.length > 0 ? (
        <table className="mt-2 w-full border-collapse" data-testid="hindsight-skipped">
          <caption className="mb-1 text-left text-2xs text-slate-500 uppercase tracking-wide">Not carried</caption>
          <thead>
            <tr className="border-b border-slate-300 text-left text-slate-600">
              <th className="py-1 pr-3 font-medium">What</th>
              <th className="py-1 pr-3 text-right font-medium">Count</th>
              <th className="py-1 font-medium">Why</th>
            </tr>
          </thead>
          <tbody>
            {result.skipped.map((s) => (
              <tr key={`${s.kind}:${s.reason}`} className="border-b border-slate-100">
                <td className="py-1 pr-3">{s.kind}</td>
                <td className="py-1 pr-3 text-right tabular-nums">{s.count}</td>
                <td className="py-1 break-words">{s.reason}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p className="mt-1 text-slate-600">Everything was carried.</p>
      )}
    </div>
  );
}
