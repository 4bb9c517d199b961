/**
 * Question suites (docs/experiments.md): the current state in `suites`, every version (the whole question
 * list) in `suite_versions`. A suite is keyed by its name within the bank. Saves use optimistic
 * concurrency on `version`, like mental models.
 */
import { and, asc, desc, eq } from "drizzle-orm";
import { AppError } from "@/lib/contracts/errors";
import type { Suite, SuiteQuestion, SuiteSummary, SuiteVersion } from "@/lib/contracts/suites";
import { canonicalJson } from "@/lib/reflect/call-signature";
import type { Db } from "../client";
import { suites, suiteVersions } from "../schema";
import { isConstraintViolation } from "./errors";

type Row = typeof suites.$inferSelect;
const toSuite = (r: Row): Suite => ({
  bankId: r.bankId,
  name: r.name,
  description: r.description,
  version: r.version,
  questions: r.questions,
  updatedAt: r.updatedAt,
});

export async function getSuite(db: Db, bankId: string, name: string): Promise<Suite | null> {
  const [row] = await db
    .select()
    .from(suites)
    .where(and(eq(suites.bankId, bankId), eq(suites.name, name)));
  return row ? toSuite(row) : null;
}

export async function listSuites(db: Db, bankId: string): Promise<SuiteSummary[]> {
  const rows = await db.select().from(suites).where(eq(suites.bankId, bankId)).orderBy(asc(suites.name));
  return rows.map((r) => ({
    bankId: r.bankId,
    name: r.name,
    description: r.description,
    version: r.version,
    updatedAt: r.updatedAt,
    questionCount: r.questions.length,
  }));
}

export async function getSuiteVersions(db: Db, bankId: string, name: string): Promise<SuiteVersion[]> {
  const rows = await db
    .select()
    .from(suiteVersions)
    .where(and(eq(suiteVersions.bankId, bankId), eq(suiteVersions.name, name)))
    .orderBy(desc(suiteVersions.version));
  return rows.map((r) => ({
    version: r.version,
    description: r.description,
    questions: r.questions,
    createdAt: r.createdAt,
  }));
}

export interface SaveSuite {
  bankId: string;
  name: string;
  description: string;
  questions: SuiteQuestion[];
  /** 0 to create; else the version the edit was based on (a mismatch is a `conflict` carrying the suite now). */
  expectedVersion: number;
  at?: string;
}

/** Creates or edits a suite; every change is a new version; saving what is there changes nothing. */
export async function saveSuite(db: Db, input: SaveSuite): Promise<Suite> {
  const version = input.expectedVersion + 1;
  const at = new Date(input.at ?? Date.now()).toISOString();
  const state = { description: input.description, questions: input.questions };
  const conflict = async () => {
    const current = await getSuite(db, input.bankId, input.name);
    return new AppError(
      "conflict",
      current
        ? input.expectedVersion === 0
          ? `suite ${input.name} already exists (version ${current.version})`
          : `suite ${input.name} is at version ${current.version}, not ${input.expectedVersion}`
        : `suite ${input.name} does not exist`,
      { current },
    );
  };
  const versionRow = db
    .insert(suiteVersions)
    .values({ bankId: input.bankId, name: input.name, version, ...state, createdAt: at });
  try {
    if (input.expectedVersion === 0) {
      await db.batch([
        db.insert(suites).values({ bankId: input.bankId, name: input.name, version, updatedAt: at, ...state }),
        versionRow,
      ]);
    } else {
      const current = await getSuite(db, input.bankId, input.name);
      if (!current || current.version !== input.expectedVersion) throw await conflict();
      if (canonicalJson(state) === canonicalJson({ description: current.description, questions: current.questions })) {
        return current;
      }
      const [updated] = await db.batch([
        db
          .update(suites)
          .set({ version, updatedAt: at, ...state })
          .where(
            and(
              eq(suites.bankId, input.bankId),
              eq(suites.name, input.name),
              eq(suites.version, input.expectedVersion),
            ),
          ),
        versionRow,
      ]);
      if (updated.rowsAffected === 0) throw await conflict();
    }
  } catch (error) {
    if (isConstraintViolation(error)) throw await conflict();
    throw error;
  }
  return { bankId: input.bankId, name: input.name, version, updatedAt: at, ...state };
}

/** Deletes the suite and its history (experiments keep their rows); returns whether it existed. */
export async function deleteSuite(db: Db, bankId: string, name: string): Promise<boolean> {
  const [deleted] = await db.batch([
    db.delete(suites).where(and(eq(suites.bankId, bankId), eq(suites.name, name))),
    db.delete(suiteVersions).where(and(eq(suiteVersions.bankId, bankId), eq(suiteVersions.name, name))),
  ]);
  return deleted.rowsAffected > 0;
}
