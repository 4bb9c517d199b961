/**
 * Bank bundle import and export (SPEC §6). Import validates the whole bundle first (schema, then
 * cross-references), then writes it in one atomic batch: a bad bundle changes nothing. Times are
 * kept as given, normalized to UTC `toISOString()` form so that stored strings compare correctly;
 * export emits the stored strings in a stable order, so export → import → export is identical.
 */
import type { InStatement } from "@libsql/client";
import { asc, eq } from "drizzle-orm";
import type { z } from "zod";
import type { ImportResult } from "@/lib/contracts/banks";
import { Bundle } from "@/lib/contracts/bundle";
import { AppError, fieldErrorsOf, formatPath } from "@/lib/contracts/errors";
import { assertValidText } from "@/lib/contracts/text";
import type { Db } from "./client";
import {
  banks,
  facts,
  mentalModels,
  mentalModelTombstones,
  mentalModelVersions,
  observations,
  skills,
  skillVersions,
  suites,
  suiteVersions,
} from "./schema";
import { createBankIndexStatements, dropBankIndexStatements } from "./search-index";

interface BundleIssue {
  /** JSON path of the offending value, e.g. `facts[3].scope`. */
  path: string;
  message: string;
}

/** The one error for a refused bundle: every issue by path; the message names the first. */
function invalidBundle(issues: readonly BundleIssue[]): AppError<"invalid_bundle"> {
  const [first] = issues;
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : "";
  return new AppError(
    "invalid_bundle",
    `invalid bundle, nothing was imported: ${first?.path || "(root)"}: ${first?.message}${more}`,
    { fieldErrors: fieldErrorsOf(issues.map(({ path, message }) => ({ path: path ? [path] : [], message }))) },
  );
}

const MAX_ISSUES = 50;

/** Schema validation plus the cross-checks a schema cannot express. */
export function validateBundle(json: unknown): Bundle {
  const parsed = Bundle.safeParse(json);
  if (!parsed.success) {
    throw invalidBundle(
      parsed.error.issues
        .slice(0, MAX_ISSUES)
        .map((issue: z.core.$ZodIssue) => ({ path: formatPath(issue.path), message: issue.message })),
    );
  }
  const bundle = parsed.data;
  const issues: BundleIssue[] = [];
  const unique = (list: { id: string }[] | { name: string }[], section: string, key: "id" | "name") => {
    const first = new Map<string, number>();
    list.forEach((item, i) => {
      const value = (item as Record<string, string>)[key] ?? "";
      const seen = first.get(value);
      if (seen === undefined) first.set(value, i);
      else
        issues.push({
          path: `${section}[${i}].${key}`,
          message: `duplicate ${key} "${value}" (first at ${section}[${seen}])`,
        });
    });
  };
  unique(bundle.facts, "facts", "id");
  unique(bundle.observations, "observations", "id");
  unique(bundle.mentalModels, "mentalModels", "id");
  unique(bundle.skills, "skills", "id");
  unique(bundle.skills, "skills", "name");
  unique(bundle.suites, "suites", "name");
  const factIds = new Set(bundle.facts.map((f) => f.id));
  bundle.observations.forEach((o, i) => {
    o.sourceFactIds.forEach((id, j) => {
      if (!factIds.has(id)) {
        issues.push({ path: `observations[${i}].sourceFactIds[${j}]`, message: `unknown fact id "${id}"` });
      }
    });
  });
  bundle.mentalModels.forEach((m, i) => {
    const versions = new Set<number>();
    m.history.forEach((h, j) => {
      const path = `mentalModels[${i}].history[${j}].version`;
      if (h.version >= m.version) {
        issues.push({ path, message: `history version ${h.version} must be below the current version ${m.version}` });
      } else if (versions.has(h.version)) {
        issues.push({ path, message: `duplicate history version ${h.version}` });
      }
      versions.add(h.version);
    });
  });
  if (issues.length > 0) throw invalidBundle(issues.slice(0, MAX_ISSUES));
  return bundle;
}

const iso = (time: string) => new Date(time).toISOString();
const isoOrNull = (time: string | null | undefined) => (time ? iso(time) : null);

/** Rows per INSERT: keeps every statement well under SQLite's bound-parameter limit. */
const CHUNK = 200;

function chunked<T>(rows: T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += CHUNK) out.push(rows.slice(i, i + CHUNK));
  return out;
}

function toStatement(query: { toSQL(): { sql: string; params: unknown[] } }): InStatement {
  const { sql, params } = query.toSQL();
  return { sql, args: params as InStatement extends { args?: infer A } ? A : never };
}

/**
 * Imports a bundle atomically. A bank id that already exists is an error unless `replace` is set,
 * in which case the bank's memories, models and skills are replaced (its runs are kept).
 */
export async function importBundle(db: Db, json: unknown, options: { replace?: boolean } = {}): Promise<ImportResult> {
  // Text that cannot round-trip (a NUL, a lone surrogate) would break the bank's next export.
  assertValidText(json, "the bundle");
  const bundle = validateBundle(json);
  const bankId = bundle.bank.id;
  const [existing] = await db.select({ id: banks.id }).from(banks).where(eq(banks.id, bankId));
  if (existing && !options.replace) {
    throw invalidBundle([
      { path: "bank.id", message: `bank "${bankId}" already exists (import with replace to overwrite it)` },
    ]);
  }

  // The bank's search index is dropped first (so replaced rows are deleted without index upkeep)
  // and rebuilt from the new rows at the end, which is faster than indexing row by row.
  const statements: InStatement[] = [...dropBankIndexStatements(bankId)];
  if (existing) {
    for (const table of [
      facts,
      observations,
      mentalModels,
      mentalModelVersions,
      mentalModelTombstones,
      skills,
      skillVersions,
      suites,
      suiteVersions,
    ]) {
      statements.push(toStatement(db.delete(table).where(eq(table.bankId, bankId))));
    }
    statements.push(toStatement(db.delete(banks).where(eq(banks.id, bankId))));
  }
  statements.push(
    toStatement(
      db.insert(banks).values({ id: bankId, name: bundle.bank.name, permittedTeams: bundle.bank.permittedTeams }),
    ),
  );
  const factRows = bundle.facts.map((f) => ({
    id: f.id,
    bankId,
    text: f.text,
    kind: f.kind,
    tags: f.tags,
    scope: f.scope,
    occurredAt: isoOrNull(f.occurredAt),
    recordedAt: iso(f.recordedAt),
    updatedAt: iso(f.updatedAt ?? f.recordedAt),
    documentId: f.documentId ?? null,
  }));
  for (const rows of chunked(factRows)) statements.push(toStatement(db.insert(facts).values(rows)));
  const observationRows = bundle.observations.map((o) => ({ ...o, bankId, updatedAt: iso(o.updatedAt) }));
  for (const rows of chunked(observationRows)) statements.push(toStatement(db.insert(observations).values(rows)));

  const modelRows = bundle.mentalModels.map((m) => {
    const lastHistory = [...m.history].sort((a, b) => a.version - b.version).at(-1);
    return {
      id: m.id,
      bankId,
      name: m.name,
      sourceQuery: m.sourceQuery,
      content: m.content,
      tags: m.tags,
      refreshedAt: isoOrNull(m.refreshedAt),
      staleOverride: m.staleOverride,
      basedOnIds: m.basedOnIds,
      version: m.version,
      updatedAt: isoOrNull(m.updatedAt ?? m.refreshedAt ?? lastHistory?.createdAt),
    };
  });
  const versionRows = bundle.mentalModels.flatMap((m, i) => {
    const current = modelRows[i]!;
    return [
      ...m.history.map((h) => ({
        bankId,
        modelId: m.id,
        version: h.version,
        name: h.name,
        sourceQuery: h.sourceQuery,
        content: h.content,
        tags: h.tags,
        refreshedAt: isoOrNull(h.refreshedAt),
        staleOverride: h.staleOverride,
        basedOnIds: h.basedOnIds,
        createdAt: isoOrNull(h.createdAt),
      })),
      {
        bankId,
        modelId: m.id,
        version: current.version,
        name: current.name,
        sourceQuery: current.sourceQuery,
        content: current.content,
        tags: current.tags,
        refreshedAt: current.refreshedAt,
        staleOverride: current.staleOverride,
        basedOnIds: current.basedOnIds,
        createdAt: current.updatedAt,
      },
    ];
  });
  for (const rows of chunked(modelRows)) statements.push(toStatement(db.insert(mentalModels).values(rows)));
  for (const rows of chunked(versionRows)) statements.push(toStatement(db.insert(mentalModelVersions).values(rows)));

  const skillRows = bundle.skills.map((s) => ({
    id: s.id,
    bankId,
    name: s.name,
    mission: s.mission,
    disposition: s.disposition,
    retrieval: s.retrieval,
    budget: s.budget,
    anchorEvery: s.anchorEvery,
    outputFormat: s.outputFormat,
    answerFormat: s.answerFormat,
    version: s.version,
    updatedAt: null,
  }));
  for (const rows of chunked(skillRows)) {
    statements.push(toStatement(db.insert(skills).values(rows)));
    statements.push(
      toStatement(
        db
          .insert(skillVersions)
          .values(rows.map(({ id, updatedAt: _updatedAt, ...s }) => ({ ...s, skillId: id, createdAt: null }))),
      ),
    );
  }

  const suiteRows = bundle.suites.map((s) => ({
    bankId,
    name: s.name,
    description: s.description,
    questions: s.questions,
    version: s.version ?? 1,
    updatedAt: isoOrNull(s.updatedAt ?? null),
  }));
  for (const rows of chunked(suiteRows)) {
    statements.push(toStatement(db.insert(suites).values(rows)));
    statements.push(
      toStatement(db.insert(suiteVersions).values(rows.map(({ updatedAt, ...s }) => ({ ...s, createdAt: updatedAt })))),
    );
  }

  statements.push(...createBankIndexStatements(bankId));
  await db.$client.batch(statements, "write");
  return {
    bankId,
    counts: {
      facts: factRows.length,
      observations: observationRows.length,
      mentalModels: modelRows.length,
      skills: skillRows.length,
    },
  };
}

/** The bank as a bundle, every list ordered by id; null when the bank does not exist. */
export async function exportBundle(db: Db, bankId: string): Promise<Bundle | null> {
  const [bank] = await db.select().from(banks).where(eq(banks.id, bankId));
  if (!bank) return null;
  const [factRows, observationRows, modelRows, versionRows, skillRows, suiteRows] = await Promise.all([
    db.select().from(facts).where(eq(facts.bankId, bankId)).orderBy(asc(facts.id)),
    db.select().from(observations).where(eq(observations.bankId, bankId)).orderBy(asc(observations.id)),
    db.select().from(mentalModels).where(eq(mentalModels.bankId, bankId)).orderBy(asc(mentalModels.id)),
    db
      .select()
      .from(mentalModelVersions)
      .where(eq(mentalModelVersions.bankId, bankId))
      .orderBy(asc(mentalModelVersions.modelId), asc(mentalModelVersions.version)),
    db.select().from(skills).where(eq(skills.bankId, bankId)).orderBy(asc(skills.id)),
    db.select().from(suites).where(eq(suites.bankId, bankId)).orderBy(asc(suites.name)),
  ]);
  return {
    version: 1,
    bank: { id: bank.id, name: bank.name, permittedTeams: bank.permittedTeams },
    facts: factRows.map((f) => ({
      id: f.id,
      text: f.text,
      kind: f.kind,
      tags: f.tags,
      scope: f.scope as Bundle["facts"][number]["scope"],
      occurredAt: f.occurredAt,
      recordedAt: f.recordedAt,
      updatedAt: f.updatedAt,
      documentId: f.documentId,
    })),
    observations: observationRows.map((o) => ({
      id: o.id,
      text: o.text,
      tags: o.tags,
      scope: o.scope as Bundle["observations"][number]["scope"],
      sourceFactIds: o.sourceFactIds,
      updatedAt: o.updatedAt,
    })),
    mentalModels: modelRows.map((m) => ({
      id: m.id,
      name: m.name,
      sourceQuery: m.sourceQuery,
      content: m.content,
      tags: m.tags,
      refreshedAt: m.refreshedAt,
      staleOverride: m.staleOverride,
      version: m.version,
      basedOnIds: m.basedOnIds,
      updatedAt: m.updatedAt,
      history: versionRows
        .filter((v) => v.modelId === m.id && v.version < m.version)
        .map((v) => ({
          version: v.version,
          name: v.name,
          sourceQuery: v.sourceQuery,
          content: v.content,
          tags: v.tags,
          refreshedAt: v.refreshedAt,
          staleOverride: v.staleOverride,
          createdAt: v.createdAt,
          basedOnIds: v.basedOnIds,
        })),
    })),
    skills: skillRows.map((s) => ({
      id: s.id,
      name: s.name,
      mission: s.mission,
      disposition: s.disposition,
      retrieval: {
        tags: s.retrieval.tags,
        types: s.retrieval.types,
        scope: s.retrieval.scope as Bundle["skills"][number]["retrieval"]["scope"],
      },
      budget: s.budget,
      anchorEvery: s.anchorEvery,
      outputFormat: s.outputFormat,
      answerFormat: s.answerFormat,
      version: s.version,
    })),
    suites: suiteRows.map((s) => ({
      name: s.name,
      description: s.description,
      questions: s.questions,
      version: s.version,
      updatedAt: s.updatedAt,
    })),
  };
}
