/**
 * Imported traces as a service: one trace's spans (all of it, from an OTLP request) added to its
 * imported run, rebuilt by the timeline's importer. The receiver (lib/server/http/otlp-receiver.ts)
 * decodes and answers; this stores.
 */
import type { Db } from "@/db/client";
import { MAX_TRACE_SPANS, type StoredTrace, storeImportedTrace } from "@/db/queries/imported-runs";
import { type ImportedSpan, traceToRun } from "@/lib/timeline/otlp-import";

export { MAX_TRACE_SPANS };

export function storeTrace(db: Db, traceId: string, spans: readonly ImportedSpan[]): Promise<StoredTrace> {
  return storeImportedTrace(db, traceId, spans, traceToRun);
}
