/**
 * A generated product-team memory bank for the scale benchmarks: facts and observations built from
 * sentence templates with seeded names, numbers, dates, tags and scopes, so term frequencies look
 * like a real team's notes (a few very common words, a long tail of names and components).
 */
import type { InValue } from "@libsql/client";
import type { Db } from "@/db/client";
import { ensureBankIndex, flushStatements } from "@/db/queries/search-index";
import type { Prng } from "./report";

export const BENCH_BANK = "bench";

const PEOPLE = [
  "Priya",
  "Sam",
  "Jonas",
  "Mei",
  "Aisha",
  "Diego",
  "Hannah",
  "Kofi",
  "Lena",
  "Marcus",
  "Noor",
  "Olga",
  "Pavel",
  "Rosa",
  "Tariq",
  "Uma",
  "Viktor",
  "Wen",
  "Yusuf",
  "Zoe",
  "Bruno",
  "Carla",
  "Dmitri",
  "Elif",
  "Farah",
  "Gustav",
  "Ines",
  "Jamal",
  "Keiko",
  "Luis",
];
const PROJECTS = [
  "Atlas",
  "Beacon",
  "Comet",
  "Delta",
  "Ember",
  "Falcon",
  "Granite",
  "Harbor",
  "Iris",
  "Juniper",
  "Keystone",
  "Lumen",
  "Meridian",
  "Nimbus",
  "Orbit",
  "Prism",
  "Quartz",
  "Relay",
  "Summit",
  "Tundra",
];
const CUSTOMERS = [
  "Acme Logistics",
  "Brightwell Health",
  "Cobalt Freight",
  "Dunmore Insurance",
  "Evergreen Foods",
  "Fjord Shipping",
  "Greyhawk Retail",
  "Helix Pharma",
  "Ironclad Security",
  "Jetstream Airways",
  "Kestrel Energy",
  "Lakeside Clinics",
  "Monarch Hotels",
  "Northgate Bank",
  "Oakridge Schools",
  "Pinnacle Telecom",
  "Quill Publishing",
  "Redwood Realty",
  "Silverline Rail",
  "Tidewater Ports",
];
const COMPONENTS = [
  "billing service",
  "SSO integration",
  "ClickHouse pipeline",
  "dashboard builder",
  "export worker",
  "audit log",
  "permissions model",
  "search index",
  "notification service",
  "warehouse connector",
  "query planner",
  "CSV importer",
  "alerting rules",
  "mobile app",
  "admin console",
  "rate limiter",
  "session store",
  "metrics exporter",
  "feature flags",
  "onboarding flow",
  "payment gateway",
  "report scheduler",
  "webhook relay",
  "API gateway",
  "data retention job",
];
const TOPICS = [
  "pricing",
  "launch date",
  "security review",
  "hiring plan",
  "flaky tests",
  "incident follow-ups",
  "roadmap",
  "contract renewal",
  "data migration",
  "on-call rotation",
  "SLA targets",
  "budget",
  "design review",
  "beta feedback",
  "load testing",
  "GDPR request",
  "SOC 2 audit",
  "churn risk",
  "usage limits",
  "quarterly goals",
];
const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];
const WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"];
export const TAGS = [
  "decision",
  "action-item",
  "blocker",
  "launch",
  "pricing",
  "sso",
  "customer",
  "quality",
  "pipeline",
  "incident",
  "hiring",
  "roadmap",
] as const;

type Slots = {
  p: string;
  q: string;
  proj: string;
  cust: string;
  comp: string;
  topic: string;
  n: number;
  date: string;
  day: string;
};

const FACT_TEMPLATES: ((s: Slots) => string)[] = [
  (s) => `${s.p} decided to move the ${s.proj} launch to ${s.date} after the ${s.topic} discussion.`,
  (s) => `${s.p} owns the ${s.comp} work for ${s.proj} and expects it done by ${s.date}.`,
  (s) => `The ${s.comp} is blocked on ${s.q} finishing the ${s.topic} sign-off.`,
  (s) => `${s.cust} asked for ${s.n} more seats and a discount on ${s.proj} pricing.`,
  (s) => `${s.cust} reported that the ${s.comp} was slow during their ${s.topic} check on ${s.day}.`,
  (s) => `Standup: ${s.p} and ${s.q} paired on the ${s.comp}; ${s.n} tests still fail intermittently.`,
  (s) => `We agreed with ${s.cust} to extend the ${s.proj} pilot by ${(s.n % 6) + 1} weeks.`,
  (s) => `Incident ${s.n}: the ${s.comp} returned errors for ${s.n % 90} minutes; ${s.p} wrote the postmortem.`,
  (s) => `${s.p} proposed raising the ${s.proj} Team plan to $${s.n} per month.`,
  (s) => `Action item for ${s.q}: review the ${s.topic} doc before ${s.day}.`,
  (s) => `The ${s.proj} ${s.topic} meeting moved to ${s.day}; ${s.p} will send notes.`,
  (s) => `${s.p} is interviewing ${s.n % 9} candidates for the ${s.comp} team this month.`,
  (s) => `Lunch with ${s.q} on ${s.day}: talked about ${s.topic} and the ${s.proj} roadmap.`,
  (s) => `${s.cust} signed the ${s.proj} contract for ${s.n} users starting ${s.date}.`,
  (s) => `The ${s.comp} migration to the new cluster finished; latency dropped by ${s.n % 60} percent.`,
  (s) => `${s.q} flagged a risk: the ${s.comp} cannot handle ${s.n * 10} requests per second yet.`,
  (s) => `Decision: ${s.proj} ships without the ${s.comp} redesign; ${s.p} will follow up in ${MONTHS[s.n % 12]}.`,
  (s) => `${s.p} mentioned that ${s.cust} is evaluating a competitor because of ${s.topic}.`,
  (s) => `The ${s.topic} review for ${s.proj} found ${s.n % 12} issues in the ${s.comp}.`,
  (s) => `${s.q} will be on leave from ${s.date}; ${s.p} covers the ${s.comp} on-call.`,
  (s) => `Budget for ${s.proj} in ${MONTHS[s.n % 12]} is $${s.n * 100}; ${s.p} approved it.`,
  (s) => `${s.cust} churned after the ${s.comp} outage; ${s.q} owns the win-back plan.`,
  (s) => `Sprint goal: finish the ${s.comp} and close ${s.n % 40} ${s.topic} tickets.`,
  (s) => `${s.p} thinks the ${s.proj} ${s.topic} estimate of ${s.n % 20} days is optimistic.`,
];

const OBSERVATION_TEMPLATES: ((s: Slots) => string)[] = [
  (s) => `${s.p} consistently owns ${s.comp} work across ${s.proj} releases.`,
  (s) => `${s.cust} keeps raising ${s.topic} concerns; renewal depends on it.`,
  (s) => `The ${s.comp} is the most frequent source of ${s.proj} incidents.`,
  (s) => `${s.proj} launch dates slip when the ${s.topic} sign-off is late.`,
  (s) => `${s.q} and ${s.p} are the go-to pair for ${s.comp} problems.`,
  (s) => `${s.topic} decisions for ${s.proj} are usually made by ${s.p}.`,
];

const QUESTION_TEMPLATES: ((s: Slots) => string)[] = [
  (s) => `When is the ${s.proj} launch?`,
  (s) => `What did ${s.p} decide about ${s.topic}?`,
  (s) => `What is blocking the ${s.comp}?`,
  (s) => `How is the ${s.cust} pilot going?`,
  (s) => `Who owns the ${s.comp} for ${s.proj}?`,
  (s) => `What happened in the ${s.comp} incidents?`,
  (s) => `What are the open action items on ${s.topic}?`,
  (s) => `What is the ${s.proj} pricing for ${s.cust}?`,
];

const DAY_MS = 86_400_000;
/** Memories span two years ending here; mental-model refresh times are placed on this timeline. */
export const TIMELINE_START = Date.parse("2024-11-01T00:00:00.000Z");
export const TIMELINE_END = Date.parse("2026-11-01T00:00:00.000Z");

function slots(r: Prng): Slots {
  const when = new Date(TIMELINE_START + r.int(730) * DAY_MS);
  return {
    p: r.pick(PEOPLE),
    q: r.pick(PEOPLE),
    proj: r.pick(PROJECTS),
    cust: r.pick(CUSTOMERS),
    comp: r.pick(COMPONENTS),
    topic: r.pick(TOPICS),
    n: 2 + r.int(480),
    date: `${MONTHS[when.getUTCMonth()]} ${when.getUTCDate()}`,
    day: r.pick(WEEKDAYS),
  };
}

function tags(r: Prng): string[] {
  const out = new Set<string>();
  const n = r.int(4); // 0–3 tags
  while (out.size < n) out.add(r.pick(TAGS));
  return [...out];
}

/** 60 % personal, 25 % team:platform (permitted), 15 % team:finance (not permitted). */
function scope(r: Prng): string {
  const x = r.next();
  return x < 0.6 ? "personal" : x < 0.85 ? "team:platform" : "team:finance";
}

/** One generated fact text (the templates of `insertFacts`). */
export function factText(r: Prng): string {
  return r.pick(FACT_TEMPLATES)(slots(r));
}

export function question(r: Prng): string {
  return r.pick(QUESTION_TEMPLATES)(slots(r));
}

/** A bank and its (empty) search index, which each insert below brings up to date in its batch. */
export async function createBenchBank(db: Db, bankId = BENCH_BANK): Promise<void> {
  await db.$client.execute({
    sql: "INSERT INTO banks (id, name, permitted_teams) VALUES (?, ?, ?)",
    args: [bankId, "Generated product team", JSON.stringify(["platform"])],
  });
  await ensureBankIndex(db, bankId);
}

const ROWS_PER_INSERT = 1_000;

/**
 * Appends facts `from`..`to-1` (ids f-<n>) and one observation per ten facts to a bank (the bench
 * bank unless named), in 1k-row INSERTs.
 */
export async function insertFacts(db: Db, r: Prng, from: number, to: number, bankId = BENCH_BANK): Promise<void> {
  const statements: { sql: string; args: InValue[] }[] = [];
  for (let start = from; start < to; start += ROWS_PER_INSERT) {
    const end = Math.min(to, start + ROWS_PER_INSERT);
    const facts: InValue[] = [];
    const observations: InValue[] = [];
    for (let i = start; i < end; i++) {
      // Recorded times increase with the id, as in a bank that grows over two years.
      const recorded = TIMELINE_START + Math.floor(((i + r.next()) / 100_000) * (TIMELINE_END - TIMELINE_START));
      const recordedAt = new Date(recorded).toISOString();
      const occurredAt = r.next() < 0.5 ? new Date(recorded - r.int(14) * DAY_MS).toISOString() : null;
      const s = slots(r);
      facts.push(
        `f-${i}`,
        bankId,
        r.pick(FACT_TEMPLATES)(s),
        r.next() < 0.3 ? "experience" : "world",
        JSON.stringify(tags(r)),
        scope(r),
        occurredAt,
        recordedAt,
        recordedAt,
      );
      if (i % 10 === 9) {
        observations.push(
          `o-${i}`,
          bankId,
          r.pick(OBSERVATION_TEMPLATES)(s),
          JSON.stringify(tags(r)),
          scope(r),
          JSON.stringify([`f-${i}`, `f-${i - 1}`]),
          recordedAt,
        );
      }
    }
    const n = end - start;
    statements.push({
      sql: `INSERT INTO facts (id, bank_id, text, kind, tags, scope, occurred_at, recorded_at, updated_at) VALUES ${Array(n).fill("(?, ?, ?, ?, ?, ?, ?, ?, ?)").join(", ")}`,
      args: facts,
    });
    if (observations.length > 0) {
      statements.push({
        sql: `INSERT INTO observations (id, bank_id, text, tags, scope, source_fact_ids, updated_at) VALUES ${Array(
          observations.length / 7,
        )
          .fill("(?, ?, ?, ?, ?, ?, ?)")
          .join(", ")}`,
        args: observations,
      });
    }
  }
  const tiers = statements.some((s) => s.sql.startsWith("INSERT INTO observations"))
    ? (["facts", "observations"] as const)
    : (["facts"] as const);
  await db.$client.batch([...statements, ...flushStatements(bankId, tiers)], "write");
}

/**
 * 50 mental models on the bench bank. Most were refreshed in the last weeks of the timeline (a
 * curated bank is refreshed regularly), some months ago, a few never or with a manual override;
 * tags vary from none (whole bank in scope) to two.
 */
export async function insertMentalModels(db: Db, r: Prng, count = 50, bankId = BENCH_BANK): Promise<void> {
  const values: InValue[] = [];
  for (let i = 0; i < count; i++) {
    const s = slots(r);
    const kind = i % 10;
    const refreshedAt =
      kind === 0 ? null : new Date(TIMELINE_END - (kind < 7 ? r.int(30) : 30 + r.int(300)) * DAY_MS).toISOString();
    const override = kind === 9 ? (i % 20 === 9 ? "fresh" : "stale") : null;
    const modelTags = i % 5 === 0 ? [] : tags(r).slice(0, 1 + (i % 2));
    values.push(
      `mm-${i}`,
      bankId,
      `${s.proj} ${s.topic}`,
      question(r),
      `## ${s.proj} ${s.topic}\n\n${FACT_TEMPLATES.slice(0, 4)
        .map((t) => `- ${t(slots(r))}`)
        .join("\n")}`,
      JSON.stringify(modelTags),
      refreshedAt,
      override,
      "[]",
      1,
      refreshedAt,
    );
  }
  await db.$client.batch(
    [
      {
        sql: `INSERT INTO mental_models (id, bank_id, name, source_query, content, tags, refreshed_at, stale_override, based_on_ids, version, updated_at) VALUES ${Array(count).fill("(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)").join(", ")}`,
        args: values,
      },
      ...flushStatements(bankId, ["mental_models"]),
    ],
    "write",
  );
}
