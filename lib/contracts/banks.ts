/**
 * Banks: the list, path parameters, bundle import/export results, the bank summary of the memory
 * page and the bank options of the run forms. The bundle format itself is bundle.ts.
 */
import { z } from "zod";
import { Skill } from "./skills";

export const Bank = z.object({ id: z.string(), name: z.string(), permittedTeams: z.array(z.string()) });
export type Bank = z.infer<typeof Bank>;

export const BankList = z.object({ banks: z.array(Bank) });

export const BankParams = z.object({ bank: z.string().min(1).meta({ description: "bank id" }) });
/** A record inside a bank: `/banks/{bank}/mental-models/{id}`, `/banks/{bank}/skills/{id}`. */
export const BankItemParams = BankParams.extend({ id: z.string().min(1) });

export const ImportQuery = z.object({
  replace: z
    .enum(["true", "false"])
    .optional()
    .meta({ description: "replace an existing bank of the same id (its runs are kept)" }),
});

export const ImportResult = z.object({
  bankId: z.string(),
  counts: z.object({
    facts: z.number(),
    observations: z.number(),
    mentalModels: z.number(),
    skills: z.number(),
    suites: z.number(),
  }),
});
export type ImportResult = z.infer<typeof ImportResult>;

/** The exported bundle: same shape as the import body (bundle.ts), loosely described. */
export const ExportResult = z.object({
  version: z.literal(1),
  bank: Bank,
  facts: z.array(z.record(z.string(), z.unknown())),
  observations: z.array(z.record(z.string(), z.unknown())),
  mentalModels: z.array(z.record(z.string(), z.unknown())),
  skills: z.array(z.record(z.string(), z.unknown())),
  suites: z.array(z.record(z.string(), z.unknown())),
});

/** A bank with its skills, for the start-run form and the run filters. */
export const BankOption = Bank.extend({
  skills: z.array(Skill.pick({ id: true, name: true, version: true, budget: true }).extend({ scope: z.string() })),
});
export type BankOption = z.infer<typeof BankOption>;

/** The memory page's header: the bank, its scopes and how many memories each tier holds. */
export const BankSummary = Bank.extend({
  scopes: z.array(z.string()),
  counts: z.object({ facts: z.number(), observations: z.number(), mentalModels: z.number() }),
});
export type BankSummary = z.infer<typeof BankSummary>;
