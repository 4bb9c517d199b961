/**
 * The demo bank: six months of a product team's memory (Northwind's "Atlas" analytics app) that the
 * demo, screenshots and tests all read. Everything is written out by hand so it reads like real
 * work; the generator only assigns ids, derives timestamps and serializes. It is deterministic (no
 * clock, no randomness), so the committed JSON is reproducible: `npx tsx db/demo/generate.ts`.
 */
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Bundle } from "@/lib/contracts/bundle";
import type { ScopeValue } from "@/lib/reflect/domain";

export const DEMO_BANK_PATH = fileURLToPath(new URL("./demo-bank.json", import.meta.url));

type Tag =
  | "decision"
  | "blocker"
  | "action-item"
  | "meeting"
  | "launch"
  | "pricing"
  | "sso"
  | "pipeline"
  | "quality"
  | "customer"
  | "hiring"
  | "incident"
  | "retro"
  | "design"
  | "roadmap";

interface FactSpec {
  /** Authoring handle so observations and model history can point at facts without knowing ids. */
  key?: string;
  text: string;
  tags: Tag[];
  /** "experience" = something I (Maya Chen, the bank's owner) did or attended. */
  kind?: "world" | "experience";
  scope?: ScopeValue;
  /** "YYYY-MM-DDTHH:MM" in UTC; null for standing facts with no moment attached. */
  at?: string | null;
  recorded?: string;
  /** Set only for facts edited after they were recorded (e.g. an action item marked done). */
  updated?: string;
  doc?: string;
}

interface ObservationSpec {
  text: string;
  tags: Tag[];
  scope?: ScopeValue;
  from: string[];
  /** Defaults to a few hours after the newest source fact, when consolidation would have run. */
  updated?: string;
}

const PLATFORM: ScopeValue = "team:platform";
const FINANCE: ScopeValue = "team:finance";

/** Facts taken from one meeting's notes share its document and time. */
function notes(doc: string, at: string, facts: FactSpec[]): FactSpec[] {
  return facts.map((f) => ({ ...f, doc, at: f.at ?? at }));
}

function iso(local: string): string {
  return new Date(`${local}:00Z`).toISOString().replace(".000Z", "Z");
}

function plusMinutes(isoTime: string, minutes: number): string {
  return new Date(Date.parse(isoTime) + minutes * 60_000).toISOString().replace(".000Z", "Z");
}

// ---------------------------------------------------------------------------------------------
// Facts (tier 3), roughly in the order they happened.
// ---------------------------------------------------------------------------------------------

const FACT_SPECS: FactSpec[] = [
  {
    at: null,
    recorded: "2026-05-04T09:00",
    tags: ["roadmap"],
    text: "Atlas is Northwind's B2B analytics app: operations teams connect their data warehouse and build shared dashboards on shipments, claims or tickets without writing SQL.",
  },
  {
    at: null,
    recorded: "2026-05-04T09:05",
    tags: [],
    text: "Atlas v1 team: Maya Chen (product), Tomás Rivera (engineering lead), Priya Nair (design), Sam Okafor (data engineering), Lena Fischer (QA), Jonah Weiss and Aiko Tanaka (engineers). Marcus Bell runs sales for the pilots and Rafael Costa is our contact on the platform team.",
  },

  // ---- May ----
  ...notes("doc-kickoff-2026-05-04", "2026-05-04T14:00", [
    {
      key: "launch-sept15",
      tags: ["launch", "decision", "roadmap"],
      text: "At the Atlas v1 kickoff we set general availability for Tuesday, September 15, 2026, so the launch lands before Q4 budget season at our target accounts.",
    },
    {
      tags: ["roadmap"],
      text: "v1 scope is locked to four pillars: the dashboard builder, scheduled email reports, warehouse connectors (Snowflake, BigQuery, Postgres) and enterprise SSO.",
    },
    {
      key: "sso-risk",
      tags: ["sso", "roadmap"],
      text: "Tomás called SAML SSO the riskiest item on the v1 list because nobody on the team has shipped it before. Jonah Weiss owns it.",
    },
    {
      kind: "experience",
      tags: ["meeting"],
      text: "I ran the Atlas v1 kickoff with Tomás, Priya, Sam, Lena and Jonah; Dana Whitfield joined for the first half hour to restate the Q4 revenue goal.",
    },
  ]),
  ...notes("doc-weekly-2026-05-12", "2026-05-12T15:00", [
    {
      key: "pipeline-decision",
      tags: ["pipeline", "decision"],
      text: "Decided to replace the nightly Postgres batch load with incremental ingestion into ClickHouse. Sam Okafor owns the migration and estimates ten weeks.",
    },
    {
      key: "hiring-req",
      tags: ["hiring"],
      text: "Dana approved one senior backend headcount for Atlas, with identity and SSO experience listed as a must-have.",
    },
    {
      tags: ["action-item", "pricing"],
      text: "Action item: Maya to draft three pricing options for the June pricing review, due May 29.",
    },
  ]),
  ...notes("doc-weekly-2026-05-19", "2026-05-19T15:00", [
    {
      tags: ["pricing"],
      text: "Tomás and Marcus both argued against usage-based pricing: warehouse query volume swings too much from month to month for a customer to budget it.",
    },
    {
      key: "acme-signed",
      tags: ["customer"],
      text: "Marcus reported that Acme Logistics signed up for a 12-week Atlas pilot starting June 8, with 12 users from their operations analytics group.",
    },
  ]),
  {
    at: "2026-05-21T10:30",
    doc: "doc-1on1-tomas-2026-05-21",
    kind: "experience",
    tags: ["hiring"],
    text: "In my 1:1 with Tomás he asked to sit on every onsite loop for the backend hire. He wants someone who can own SSO once we launch.",
  },
  {
    at: "2026-05-26T13:00",
    key: "usability-sessions",
    kind: "experience",
    tags: ["design"],
    text: "I sat in on Priya's five usability sessions; four of the five participants built a working dashboard in under ten minutes.",
  },
  ...notes("doc-design-review-2026-05-27", "2026-05-27T16:00", [
    {
      key: "design-builder",
      tags: ["design", "decision"],
      text: "Design review: we picked Priya's drag-to-grid dashboard builder, with saved metrics in a left rail, over the notebook-style prototype, because test users never opened the notebook.",
    },
    {
      tags: ["design", "action-item"],
      text: "Action item: Priya to design the empty states and the first-run onboarding screens by June 12.",
    },
  ]),
  {
    at: "2026-05-28T11:00",
    tags: ["quality"],
    text: "Lena set up the Playwright end-to-end suite in CI. It starts with 86 tests covering login, dashboard editing and report scheduling.",
  },

  // ---- June ----
  ...notes("doc-weekly-2026-06-02", "2026-06-02T15:00", [
    {
      tags: ["pricing", "meeting"],
      text: "Maya presented three pricing models at the weekly: a flat platform fee, per seat, or per connected warehouse. The room leaned toward per seat with tiers.",
    },
    {
      tags: ["pipeline"],
      text: "Sam finished the ClickHouse schema for shipments and tracking events; the first full table load takes about 11 minutes for 40 million rows.",
    },
  ]),
  ...notes("doc-acme-kickoff-2026-06-08", "2026-06-08T16:00", [
    {
      key: "acme-kickoff",
      tags: ["customer"],
      text: "The Acme Logistics pilot kicked off with Helen Park, their director of operations analytics, as sponsor. Success means retiring their weekly late-shipments spreadsheet by August.",
    },
    {
      kind: "experience",
      tags: ["customer"],
      text: "I ran the Acme kickoff call and connected Atlas to their Snowflake sandbox together with Victor Osei, their data engineer.",
    },
  ]),
  ...notes("doc-pricing-review-2026-06-10", "2026-06-10T17:00", [
    {
      key: "pricing-tiers",
      tags: ["pricing", "decision"],
      text: "Pricing decision: Atlas launches with per-seat pricing in three tiers — Starter at $29 per seat per month, Team at $59, and Enterprise on a custom annual contract.",
    },
    {
      key: "enterprise-floor",
      tags: ["pricing", "decision"],
      text: "Enterprise has a floor of $24,000 a year and is the only tier that includes SSO, audit logs and the 99.9% uptime SLA.",
    },
    {
      tags: ["pricing", "action-item"],
      text: "Action item: Marcus to test the $59 Team price on three prospects before July 10.",
    },
  ]),
  {
    at: "2026-06-11T09:30",
    kind: "experience",
    tags: ["pricing"],
    text: "I walked Dana through the pricing decision the morning after the review. She signed off but wants viewer-only users revisited once the Acme pilot has run for a month.",
  },
  {
    at: "2026-06-12T18:00",
    scope: FINANCE,
    tags: ["pricing"],
    text: "Finance model for FY27 assumes $3.2M in Atlas ARR, 41 paying accounts by March and an average Enterprise contract of $52,000.",
  },
  ...notes("doc-brightwell-call-2026-06-16", "2026-06-16T17:30", [
    {
      key: "bw-requires-sso",
      tags: ["customer", "sso"],
      text: "Brightwell Health agreed to a pilot, but they will not roll Atlas out beyond five users until we support SAML SSO with their Microsoft Entra ID tenant.",
    },
    {
      key: "bw-people",
      tags: ["customer"],
      text: "Brightwell's pilot tracks the claims-processing backlog. The sponsor is Nadia Rahman, head of clinical operations; Owen Brandt is their IT security contact.",
    },
    {
      tags: ["customer", "action-item"],
      text: "Action item: Marcus to send Brightwell our security questionnaire answers and the SOC 2 Type I report by June 26.",
    },
  ]),
  {
    at: "2026-06-18T10:30",
    doc: "doc-1on1-tomas-2026-06-18",
    kind: "experience",
    tags: ["sso"],
    text: "Tomás and I agreed in our 1:1 that he stops reviewing every frontend PR himself and hands that to Aiko, so he has time for the SSO design.",
  },
  {
    at: "2026-06-19T12:00",
    tags: ["quality"],
    text: "Lena noticed that 9 of the 112 end-to-end tests failed at least once in the last 20 runs on main without any change to the code they cover.",
  },
  {
    at: "2026-06-23T15:00",
    doc: "doc-weekly-2026-06-23",
    tags: ["hiring"],
    text: "The senior backend role had 64 applicants in its first three weeks; nine of them are through to phone screens.",
  },
  ...notes("doc-retro-2026-06-25", "2026-06-25T15:30", [
    {
      tags: ["retro"],
      text: "Sprint 12 retro: everyone liked the daily demo of the dashboard builder, but CI takes 34 minutes and often needs a second run.",
    },
    {
      tags: ["retro", "action-item", "quality"],
      key: "tomas-ci-split",
      text: "Retro action item: Tomás to split CI so unit and end-to-end tests run in parallel, due July 3. Done July 2.",
      updated: "2026-07-02T16:20",
    },
  ]),
  {
    key: "incident-june",
    at: "2026-06-29T07:40",
    recorded: "2026-06-29T11:15",
    tags: ["incident", "pipeline"],
    text: "Small incident on June 29: the nightly Postgres load finished four hours late because a vacuum job held a lock on the events table, so dashboards showed Sunday's data until 11:00 UTC.",
  },
  ...notes("doc-weekly-2026-06-30", "2026-06-30T15:00", [
    {
      tags: ["pipeline", "action-item"],
      text: "Action item: Sam to write the dual-write plan for the ClickHouse migration, including how we compare row counts between old and new, by July 7.",
    },
    {
      tags: ["design"],
      text: "Priya's onboarding flow is done: the first-run checklist asks a new user to connect a warehouse, pick a template and invite one teammate.",
    },
  ]),

  // ---- July ----
  ...notes("doc-acme-checkin-2026-07-06", "2026-07-06T16:00", [
    {
      key: "acme-feedback-csv",
      tags: ["customer"],
      text: "Acme Logistics said at the pilot check-in that the late-shipments dashboard has already replaced their Monday spreadsheet, but the 10,000-row CSV export limit is blocking their carrier scorecards.",
    },
    {
      key: "acme-feedback-email",
      tags: ["customer"],
      text: "Helen Park asked for scheduled email reports so that regional managers who never log in still get the numbers every Monday at 7am.",
    },
    {
      key: "acme-viewers",
      tags: ["customer", "pricing"],
      text: "Acme said paying $59 a seat for 40 regional managers who only read dashboards would kill the business case; they would buy 12 editor seats at most.",
    },
    {
      kind: "experience",
      tags: ["customer"],
      text: "I took the notes at the Acme check-in and shared them with Marcus and Tomás the same afternoon.",
    },
  ]),
  ...notes("doc-weekly-2026-07-07", "2026-07-07T15:00", [
    {
      tags: ["customer", "action-item"],
      text: "Action item: Aiko to raise the CSV export limit to 100,000 rows and stream the file instead of building it in memory, due July 24. Done on July 23.",
      updated: "2026-07-23T17:45",
    },
    {
      key: "pipeline-dualwrite",
      tags: ["pipeline"],
      text: "Sam will start dual-writing shipments and events to both Postgres and ClickHouse on July 8.",
    },
  ]),
  {
    at: "2026-07-09T17:00",
    tags: ["pipeline"],
    text: "First day of dual-write: row counts in ClickHouse match Postgres to within 0.02%.",
  },
  ...notes("doc-retro-2026-07-09", "2026-07-09T15:30", [
    {
      tags: ["retro", "quality"],
      text: "Sprint 14 retro: splitting CI cut wall time from 34 to 19 minutes, but flaky end-to-end tests now cause most of the red builds.",
    },
    {
      tags: ["retro", "design"],
      text: "Engineers asked Priya to attach interaction specs to the Figma frames after two features shipped with different hover behaviour.",
    },
  ]),
  ...notes("doc-weekly-2026-07-14", "2026-07-14T15:00", [
    {
      key: "flaky-61",
      tags: ["quality", "blocker"],
      text: "CI on main was green on only 61% of runs last week. Lena counted 23 end-to-end tests that fail intermittently, and people now re-run pipelines by reflex.",
    },
    {
      key: "flaky-quarantine",
      tags: ["quality", "decision"],
      text: "We decided to quarantine flaky tests behind a @flaky tag: they still run but no longer fail the build. Lena owns the quarantine list and posts it every Monday.",
    },
    {
      tags: ["quality", "action-item"],
      text: "Action item: every engineer fixes at least two quarantined tests per sprint, and Tomás tracks it on the sprint board.",
    },
    {
      key: "sso-design",
      tags: ["sso"],
      text: "Jonah finished the SAML design doc: service-provider-initiated login through the platform team's identity service, just-in-time user provisioning and group-to-role mapping.",
    },
  ]),
  {
    at: "2026-07-16T14:00",
    tags: ["hiring"],
    text: "Three candidates passed the phone screen for the senior backend role; their onsites are booked between July 21 and July 30.",
  },
  {
    at: "2026-07-21T13:00",
    key: "pipeline-late-events",
    tags: ["pipeline", "blocker"],
    text: "The ClickHouse migration is stuck on late-arriving events: roughly 3% of tracking events show up more than 48 hours late, and the current merge logic silently drops them.",
  },
  {
    at: "2026-07-22T15:00",
    kind: "experience",
    tags: ["hiring"],
    text: "I interviewed Elif Demir for the senior backend role. She built SAML and SCIM support at her last company and asked sharp questions about our identity service.",
  },
  {
    at: "2026-07-23T10:00",
    scope: PLATFORM,
    tags: ["sso"],
    text: "The identity service still runs node-saml 3.2 and has had no dependency upgrades since January. It belongs to the platform team; Rafael Costa is the contact.",
  },
  {
    at: "2026-07-27T16:00",
    tags: ["sso"],
    text: "Jonah has SP-initiated SAML login working against an Okta developer tenant. Testing with Entra ID waits on Brightwell creating an app registration for us.",
  },
  ...notes("doc-weekly-2026-07-28", "2026-07-28T15:00", [
    {
      key: "pipeline-replacing",
      tags: ["pipeline", "decision"],
      text: "Decided to rebuild the events table as a ReplacingMergeTree keyed on event id, so late events overwrite old rows instead of vanishing. Sam says this adds about a week.",
    },
    {
      tags: ["sso", "action-item", "customer"],
      text: "Action item: Marcus to ask Owen Brandt at Brightwell for an Entra ID test tenant and app registration by August 7.",
    },
  ]),
  ...notes("doc-pricing-review-2026-07-29", "2026-07-29T17:00", [
    {
      key: "viewer-seats",
      tags: ["pricing", "decision"],
      text: "Pricing decision: read-only viewer seats are free and unlimited on Team and Enterprise. Only people who create or edit dashboards need a paid seat.",
    },
    {
      tags: ["pricing"],
      text: "We expect free viewers to cut paid seats per account by about a third; Marcus thinks it will double the number of accounts that make it through procurement.",
    },
    {
      tags: ["pricing", "customer"],
      text: "Two of the three prospects Marcus tested accepted the $59 Team price without pushback once viewers were free.",
    },
  ]),
  {
    at: "2026-07-30T16:30",
    kind: "experience",
    tags: ["pricing", "customer"],
    text: "I called Helen Park to tell her viewer seats will be free. She said that makes a 12-seat Team plan an easy approval at Acme.",
  },
  {
    key: "platform-freeze",
    at: "2026-07-30T11:00",
    scope: PLATFORM,
    tags: ["roadmap"],
    text: "Platform team plan: the Kubernetes 1.31 upgrade runs from August 24 to September 8, and shared services are frozen for changes during that window.",
  },

  // ---- August ----
  {
    at: "2026-08-03T09:00",
    scope: FINANCE,
    tags: ["hiring"],
    text: "Atlas headcount budget for FY27 is capped at $1.46M fully loaded. A second data engineer only fits if the QA contractor is not renewed in January.",
  },
  ...notes("doc-weekly-2026-08-04", "2026-08-04T15:00", [
    {
      tags: ["pipeline"],
      text: "The backfill of 14 months of shipment history into ClickHouse finished over the weekend. In Sam's benchmark, dashboards on ClickHouse are 6 to 9 times faster than on Postgres.",
    },
    {
      key: "bw-waiting",
      tags: ["customer", "sso"],
      text: "Five Brightwell users are building backlog dashboards; Nadia Rahman says the rest of her 60-person team is waiting for SSO.",
    },
    {
      key: "cut-sql-metrics",
      tags: ["roadmap", "decision"],
      text: "We cut custom SQL metrics from v1 and moved them to the first release after launch, to protect the September 15 date.",
    },
  ]),
  ...notes("doc-retro-2026-08-06", "2026-08-06T15:30", [
    {
      key: "flaky-31",
      tags: ["retro", "quality"],
      text: "Sprint 16 retro: the quarantine list has grown to 31 tests. Lena warned that at this rate the @flaky tag is hiding real regressions, not just noise.",
    },
    {
      key: "flaky-merge-block",
      tags: ["retro", "quality", "decision"],
      text: "Retro decision: merges to main are blocked whenever the quarantine list is above 20 tests, until it drops back under.",
    },
  ]),
  {
    key: "incident-aug",
    at: "2026-08-11T03:20",
    recorded: "2026-08-11T09:40",
    tags: ["incident", "pipeline"],
    text: "SEV-3 on August 11: the ClickHouse dual-write consumer fell five hours behind after a Kafka rebalance loop. The old Postgres path kept dashboards correct, so no customer saw stale data.",
  },
  {
    at: "2026-08-11T08:00",
    scope: PLATFORM,
    tags: ["incident"],
    text: "Rafael traced the August 11 rebalance loop to a 10-second consumer session timeout; platform raised it to 45 seconds for every consumer group.",
  },
  {
    at: "2026-08-11T10:00",
    kind: "experience",
    tags: ["incident"],
    text: "I was secondary on call for the August 11 SEV-3 and drafted a customer status note, which in the end we never needed to send.",
  },
  ...notes("doc-pricing-review-2026-08-12", "2026-08-12T17:00", [
    {
      key: "annual-discount",
      tags: ["pricing", "decision"],
      text: "Pricing decision: annual billing gets 15% off Starter and Team. Marcus pushed for 20%, but the margin model showed 15% keeps gross margin above 78%.",
    },
    {
      tags: ["pricing"],
      text: "Starter and Team can still be billed monthly; Enterprise is annual only.",
    },
  ]),
  {
    at: "2026-08-13T10:30",
    doc: "doc-1on1-priya-2026-08-13",
    kind: "experience",
    tags: ["design"],
    text: "Priya asked in our 1:1 to own the in-app launch announcement and the pricing page layout. I agreed and moved the docs site over to Aiko.",
  },
  {
    key: "elif-offer",
    at: "2026-08-14T16:00",
    tags: ["hiring", "decision"],
    text: "Hiring decision: we are making Elif Demir an offer for the senior backend role. The debrief was unanimous and Tomás rated her SAML answers the best of the loop.",
  },
  ...notes("doc-weekly-2026-08-18", "2026-08-18T15:00", [
    {
      key: "sso-encrypted",
      tags: ["sso", "blocker"],
      text: "The SSO rollout to Brightwell is blocked: their Entra ID tenant sends assertions encrypted with AES-256-GCM, node-saml 3.2 in our identity service cannot decrypt them, and users loop back to the login page.",
    },
    {
      key: "sso-needs-platform",
      tags: ["sso", "blocker"],
      text: "Jonah says the fix is upgrading the identity service to node-saml 5, which supports AES-GCM — but the platform team owns that service and goes into a change freeze on August 24.",
    },
  ]),
  {
    key: "sso-platform-slot",
    at: "2026-08-19T11:00",
    scope: PLATFORM,
    tags: ["sso", "blocker"],
    text: "Rafael says platform cannot take the node-saml 5 upgrade before the freeze; the earliest slot is September 9, right after the Kubernetes 1.31 upgrade.",
  },
  {
    key: "bw-no-unencrypted",
    at: "2026-08-20T14:00",
    tags: ["sso", "customer"],
    text: "Owen Brandt confirmed that Brightwell's security policy does not allow unencrypted SAML assertions, not even for a pilot.",
  },
  {
    key: "pentest-slot",
    at: "2026-08-20T16:00",
    recorded: "2026-08-21T08:30",
    tags: ["sso", "blocker"],
    text: "Brightwell also needs a third-party penetration test of the SSO flow before go-live. The earliest slot Halcyon Security can give us is September 14–18.",
  },
  {
    key: "tomas-platform-signoff",
    at: "2026-08-20T16:30",
    tags: ["action-item", "sso"],
    text: "Action item: Tomás to get platform sign-off for the node-saml 5 upgrade and a named reviewer from Rafael's team by September 4. Update: done on September 3.",
    updated: "2026-09-03T18:10",
  },
  {
    key: "elif-accepted",
    at: "2026-08-21T09:00",
    tags: ["hiring"],
    text: "Elif Demir accepted our offer. Because of her notice period in Berlin she starts on October 19.",
  },
  {
    key: "flaky-shared-db",
    at: "2026-08-24T13:00",
    tags: ["quality"],
    text: "Lena found the biggest flaky cluster: 11 tests share one seeded Postgres database across parallel Playwright workers and overwrite each other's dashboards.",
  },
  {
    at: "2026-08-24T13:30",
    tags: ["quality", "action-item"],
    text: "Action item: Aiko to give each Playwright worker its own database schema, due September 4.",
  },
  ...notes("doc-weekly-2026-08-25", "2026-08-25T15:00", [
    {
      key: "launch-risk",
      tags: ["launch", "sso", "blocker"],
      text: "Tomás told the weekly sync that September 15 is at risk: the SSO fix cannot land before September 9, and the pen test only ends on September 18.",
    },
    {
      tags: ["launch", "action-item"],
      text: "Action item: Maya to bring Dana a recommendation on the launch date by September 1.",
    },
    {
      tags: ["customer"],
      text: "Acme Logistics extended the pilot by four weeks to run through launch and asked to be named as a reference customer.",
    },
  ]),
  ...notes("doc-1on1-dana-2026-08-27", "2026-08-27T17:00", [
    {
      key: "dana-slip-ok",
      kind: "experience",
      tags: ["launch"],
      text: "In my 1:1 with Dana she said a slip is acceptable if we launch with SSO, because Brightwell is the only Enterprise deal in the Q4 forecast.",
    },
    {
      key: "dana-second-de",
      kind: "experience",
      tags: ["hiring"],
      text: "Dana asked me to start planning a second data engineer for 2027; right now Sam is the only person who understands the pipeline end to end.",
    },
  ]),
  {
    key: "pipeline-late-fixed",
    at: "2026-08-27T12:00",
    tags: ["pipeline"],
    text: "The ReplacingMergeTree change is live. Late events now land correctly, and the daily reconciliation between Postgres and ClickHouse has shown zero missing rows for seven days straight.",
  },

  // ---- September ----
  ...notes("doc-weekly-2026-09-01", "2026-09-01T15:00", [
    {
      key: "launch-oct6",
      tags: ["launch", "decision"],
      text: "Launch decision: GA moves from September 15 to October 6, because the SSO blocker cannot be cleared in time for the Brightwell pen test. Dana approved the slip the same day.",
    },
    {
      key: "launch-no-sso-rejected",
      tags: ["launch", "decision", "sso"],
      text: "We chose not to launch on September 15 and add SSO later: Enterprise without SSO means no Brightwell, and Brightwell is the anchor logo for the launch.",
    },
    {
      tags: ["launch", "customer", "action-item"],
      text: "Action item: Marcus to tell Acme Logistics and Brightwell Health about the new October 6 launch date by September 3.",
    },
    {
      tags: ["launch"],
      text: "September 15 stays on the calendar as a code freeze for everything except SSO.",
    },
  ]),
  {
    at: "2026-09-01T18:00",
    kind: "experience",
    tags: ["launch"],
    text: "I posted the launch slip announcement in the company channel and moved the go/no-go review to September 22.",
  },
  {
    at: "2026-09-02T10:00",
    scope: FINANCE,
    tags: ["launch"],
    text: "Finance estimates the slip to October 6 pushes $410,000 of Q3 bookings into Q4. The CFO approved a $250,000 contingency in case the launch date moves past October 20.",
  },
  {
    key: "platform-signoff",
    at: "2026-09-03T17:00",
    tags: ["sso"],
    text: "Rafael signed off on the node-saml 5 upgrade and named Kofi Mensah from the platform team as reviewer. Work starts September 9, when the freeze lifts.",
  },
  {
    at: "2026-09-03T17:30",
    scope: PLATFORM,
    tags: ["sso"],
    text: "Platform put the identity service's node-saml 5 upgrade into the September 9 change window and will rotate the SP signing certificate in the same deploy.",
  },
  ...notes("doc-retro-2026-09-03", "2026-09-03T15:30", [
    {
      tags: ["retro"],
      text: "Sprint 18 retro: the launch slip was communicated well, but several people heard about the SSO blocker on Slack before it came up at the weekly sync.",
    },
    {
      key: "risks-section",
      tags: ["retro", "action-item"],
      text: "Retro action item: Tomás to add a standing 'risks and blockers' section to the top of the weekly sync agenda, starting September 8. Done: first used at the September 8 sync.",
      updated: "2026-09-08T09:00",
    },
  ]),
  {
    key: "flaky-schemas",
    at: "2026-09-04T16:00",
    tags: ["quality"],
    text: "Per-worker database schemas are merged. The next 40 CI runs on main were 95% green, and 12 tests came off the quarantine list.",
  },
  ...notes("doc-weekly-2026-09-08", "2026-09-08T15:00", [
    {
      tags: ["quality"],
      text: "The quarantine list is down to 19 tests, under the merge-block threshold for the first time since August 6.",
    },
    {
      key: "sso-rollout-plan",
      tags: ["sso", "launch"],
      text: "SSO rollout plan: Brightwell goes first on October 1, right after the pen test; self-serve SAML setup opens to every Enterprise customer at GA.",
    },
    {
      tags: ["design", "sso"],
      text: "Priya finished the SSO settings page: admins paste the Entra ID federation metadata URL, map groups to Atlas roles and test the connection before enforcing it.",
    },
    {
      tags: ["pricing", "action-item"],
      text: "Action item: Maya to write the pricing page copy, including how free viewers work, by September 18. Done September 17.",
      updated: "2026-09-17T15:30",
    },
    {
      tags: ["launch", "meeting"],
      text: "The new risks section listed three threats to the launch: the SSO pen test results, 19 quarantined tests and the ClickHouse cutover.",
    },
  ]),
  {
    at: "2026-09-09T20:00",
    scope: PLATFORM,
    tags: ["sso"],
    text: "Kofi Mensah deployed node-saml 5 to the identity service in staging on September 9; encrypted assertions from an Entra ID test tenant now decrypt correctly.",
  },
  {
    key: "sso-staging-works",
    at: "2026-09-10T14:00",
    tags: ["sso"],
    text: "Jonah signed in to staging through Brightwell's Entra ID tenant with an encrypted assertion on the first try, and group-to-role mapping worked for their Analysts and Admins groups.",
  },
  {
    key: "pipeline-cutover-plan",
    at: "2026-09-10T15:00",
    tags: ["pipeline", "decision"],
    text: "Decided to switch dashboards over to ClickHouse on September 29 and keep the Postgres path read-only for two weeks as a fallback.",
  },
  {
    at: "2026-09-10T17:00",
    kind: "experience",
    tags: ["launch"],
    text: "I updated the launch plan for the October 6 date and sent it to Dana and Marcus.",
  },
  {
    at: "2026-09-14T09:00",
    tags: ["sso"],
    text: "Halcyon Security started the SSO penetration test on September 14, using staging credentials for two Entra ID test users.",
  },
  {
    key: "acme-results",
    at: "2026-09-15T16:00",
    doc: "doc-acme-review-2026-09-15",
    tags: ["customer"],
    text: "At the week-14 pilot review, Acme Logistics said the scheduled Monday report now goes to 38 regional managers and late-shipment escalations are down 22% since June.",
  },
  {
    key: "pilot-discount",
    at: "2026-09-16T17:00",
    doc: "doc-pricing-review-2026-09-16",
    tags: ["pricing", "customer", "decision"],
    text: "Pricing decision: pilot customers who sign before December 31 get 30% off their first year. That covers Acme Logistics and Brightwell Health.",
  },
  {
    at: "2026-09-16T11:00",
    tags: ["customer", "quality"],
    text: "Helen Park reported two wrong totals on Acme's carrier scorecard after the clocks changed in their Mexico hub; Lena reproduced it as a bug in how we bucket dates in UTC versus local time.",
  },
  {
    at: "2026-09-16T14:30",
    doc: "doc-1on1-sam-2026-09-16",
    key: "sam-spof",
    kind: "experience",
    tags: ["pipeline"],
    text: "Sam told me in our 1:1 that he worries about being the only person who can operate ClickHouse. We agreed he pairs with Tomás on the cutover runbook.",
  },
  {
    key: "pentest-findings",
    at: "2026-09-17T18:00",
    tags: ["sso", "blocker"],
    text: "Halcyon's preliminary report has two medium findings in the SSO flow: the RelayState parameter allows an open redirect, and we never check InResponseTo, so a captured assertion could be replayed.",
  },
  {
    key: "bw-needs-retest",
    at: "2026-09-18T15:00",
    tags: ["sso", "customer", "blocker"],
    text: "The pen test findings are now what is blocking the SSO rollout: Owen Brandt said Brightwell will not enable SSO until both are fixed and Halcyon confirms the fixes in a retest.",
  },
  {
    key: "jonah-fixes",
    at: "2026-09-18T16:00",
    tags: ["sso", "action-item"],
    text: "Action item: Jonah to fix the RelayState open redirect and add InResponseTo validation by September 29. Halcyon's earliest retest date is October 7.",
  },
  {
    at: "2026-09-18T16:30",
    scope: PLATFORM,
    tags: ["sso"],
    text: "Platform agreed the InResponseTo check needs a shared request-ID cache in Redis; Kofi estimates three days of platform work.",
  },
  ...notes("doc-go-no-go-2026-09-22", "2026-09-22T16:00", [
    {
      key: "launch-oct20",
      tags: ["launch", "decision", "meeting"],
      text: "The September 22 go/no-go was called to decide the launch date. Decision: no-go for October 6 — Atlas GA moves to Tuesday, October 20.",
    },
    {
      key: "launch-oct20-reasons",
      tags: ["launch", "sso", "quality"],
      text: "Why the launch date moved again: Halcyon cannot retest the SSO fixes before October 7, and the quarantine list crept back up to 24 tests last week.",
    },
    {
      tags: ["launch", "decision"],
      text: "Marcus argued for launching on October 6 without the Enterprise tier. Dana overruled him, since the Brightwell contract and the launch story both depend on SSO.",
    },
    {
      key: "launch-final",
      tags: ["launch", "decision"],
      text: "October 20 is final: Dana said there will be no third slip, and anything not ready by the October 13 code freeze ships after launch.",
    },
    {
      key: "tomas-release-branch",
      tags: ["action-item", "launch"],
      text: "Action item: Tomás to cut the release branch on October 13 and run the full regression with Lena by October 16. Closed: branch cut October 13, regression green October 16.",
      updated: "2026-10-16T17:00",
    },
    {
      key: "lena-under-15",
      tags: ["action-item", "quality"],
      text: "Action item: Lena to get the quarantine list under 15 tests before the October 13 code freeze. Done — 13 at the freeze.",
      updated: "2026-10-13T16:40",
    },
    {
      tags: ["action-item", "customer"],
      text: "Action item: Marcus to let Acme and Brightwell know about the October 20 date by September 24.",
    },
    {
      kind: "experience",
      tags: ["launch", "meeting"],
      text: "I chaired the go/no-go and sent the October 20 decision, with the reasons, to the all-hands channel that afternoon.",
    },
  ]),
  ...notes("doc-retro-2026-09-24", "2026-09-24T15:30", [
    {
      tags: ["retro"],
      text: "Sprint 19 retro: morale dipped after the second slip. Jonah said the pen test findings felt like his fault, and the team agreed they point to a process gap, not a person.",
    },
    {
      key: "saml-checklist",
      tags: ["retro", "sso", "action-item"],
      text: "Retro action item: Jonah and Kofi to add a SAML security checklist (RelayState allow-list, InResponseTo, clock skew, audience check) to the identity service's PR template by October 9.",
    },
  ]),
  {
    key: "platform-capacity",
    at: "2026-09-28T10:00",
    scope: PLATFORM,
    tags: ["pipeline"],
    text: "Platform sized the Atlas ClickHouse cluster at three nodes with 16 vCPUs each. Rafael warned it has little headroom for large backfills during business hours.",
  },
  ...notes("doc-weekly-2026-09-29", "2026-09-29T15:00", [
    {
      key: "cutover-done",
      tags: ["pipeline"],
      text: "Dashboards switched to ClickHouse this morning at 06:00 UTC. Median dashboard load time went from 4.1 seconds to 0.6 seconds.",
    },
    {
      tags: ["pipeline", "action-item"],
      text: "Action item: Sam to turn off the Postgres batch load after October 13, provided the reconciliation stays clean.",
    },
    {
      key: "sso-fixes-merged",
      tags: ["sso"],
      text: "Jonah merged the RelayState allow-list and InResponseTo validation; the platform team's Redis request-ID cache went live in staging the same day.",
    },
    {
      tags: ["launch", "meeting"],
      text: "Launch checklist at the weekly: pricing page, docs site, status page and in-app announcement are on track for October 20. The SSO retest is the only red item.",
    },
  ]),

  // ---- October ----
  {
    at: "2026-10-01T15:00",
    tags: ["sso", "customer"],
    text: "Brightwell is holding SSO enablement for Halcyon's October 7 retest; their five pilot users stay on password login for now.",
  },
  {
    key: "de-req",
    at: "2026-10-01T17:00",
    tags: ["hiring"],
    text: "Dana approved a second data engineer req for January, and Sam will write the job description.",
  },
  ...notes("doc-weekly-2026-10-06", "2026-10-06T15:00", [
    {
      tags: ["launch"],
      text: "October 6, the old launch date, was an ordinary working day; Priya used it to record the launch demo video.",
    },
    {
      tags: ["quality"],
      text: "Quarantine list stands at 16 tests; Lena expects to be under 15 by the code freeze.",
    },
  ]),
  {
    key: "sso-no-addon",
    at: "2026-10-07T17:00",
    doc: "doc-pricing-review-2026-10-07",
    tags: ["pricing", "decision", "sso"],
    text: "Pricing decision: SSO stays Enterprise-only rather than becoming a $5-per-seat add-on for Team. Dana wants one clear reason to upgrade to Enterprise; Marcus's add-on idea goes on the list for 2027.",
  },
  {
    key: "retest-pass",
    at: "2026-10-08T18:00",
    // What clears a blocker is about the blocker: the blockers skill retrieves by this tag.
    tags: ["sso", "blocker"],
    text: "Halcyon's retest on October 7–8 closed both medium findings; the final report lists no open issues in the SSO flow.",
  },
  {
    key: "bw-approved",
    at: "2026-10-09T14:00",
    tags: ["sso", "customer", "blocker"],
    text: "Owen Brandt approved SSO for Brightwell after reading Halcyon's final report, and enablement is set for October 14.",
  },
  {
    at: "2026-10-09T16:00",
    tags: ["sso"],
    text: "The SAML security checklist from the retro is now part of the identity service's PR template; Kofi reviewed it for platform.",
  },
  ...notes("doc-weekly-2026-10-13", "2026-10-13T15:00", [
    {
      key: "code-freeze",
      tags: ["launch"],
      text: "Code freeze for the October 20 launch started today; Tomás cut the release/2026.10 branch in the afternoon.",
    },
    {
      key: "flaky-13",
      tags: ["quality"],
      text: "Lena closed the quarantine list at 13 tests for the freeze; none of them cover areas that change for launch.",
    },
    {
      key: "pricing-page-final",
      tags: ["pricing", "decision", "launch"],
      text: "Pricing page approved for launch: Starter $29 and Team $59 per editor seat per month, free viewers, 15% off annual billing, and Enterprise from $24,000 a year with SSO, audit logs and the 99.9% SLA.",
    },
    {
      key: "postgres-off",
      tags: ["pipeline"],
      text: "Sam turned off the Postgres batch load; ClickHouse is now the only store behind dashboards.",
    },
    {
      tags: ["hiring"],
      text: "Sam's job description for the second data engineer asks for streaming ingestion, ClickHouse operations and a share of the pipeline on-call.",
    },
  ]),
  {
    key: "finance-pricing",
    at: "2026-10-14T11:00",
    scope: FINANCE,
    tags: ["pricing", "decision"],
    text: "Finance pricing decision, not yet shared with the product team: raise Team to $69 per seat and the Enterprise floor to $40,000 from January 1, 2027.",
  },
  {
    key: "bw-sso-live",
    at: "2026-10-14T19:00",
    tags: ["sso", "customer"],
    text: "Brightwell Health turned on SSO on October 14. 58 users signed in through Entra ID on the first day, and the five pilot accounts were merged without losing any dashboards.",
  },
  {
    at: "2026-10-14T17:00",
    kind: "experience",
    tags: ["sso", "customer"],
    text: "I joined Brightwell's SSO enablement call with Jonah and Owen Brandt. The only hiccup was one user whose Entra group was not mapped to any Atlas role.",
  },
  {
    at: "2026-10-16T17:00",
    tags: ["quality", "launch"],
    text: "The full regression on the release branch passed on October 16 with no failures outside the 13 quarantined tests.",
  },
  {
    key: "elif-started",
    at: "2026-10-19T09:00",
    tags: ["hiring"],
    text: "Elif Demir started on October 19 and was in the launch war room on her second day.",
  },
  {
    key: "launched",
    at: "2026-10-20T14:00",
    tags: ["launch"],
    text: "Atlas went GA on Tuesday, October 20 at 14:00 UTC; the launch post, pricing page and self-serve signup went live together.",
  },
  {
    at: "2026-10-20T14:30",
    tags: ["launch", "customer"],
    text: "Acme Logistics and Brightwell Health were our named launch customers, and the launch post quotes Helen Park on retiring the Monday spreadsheet.",
  },
  {
    at: "2026-10-20T18:30",
    kind: "experience",
    tags: ["launch"],
    text: "I ran the launch war room from 13:00 to 18:00 UTC. The only issue was a typo in the annual discount on the pricing page, fixed within ten minutes.",
  },
  {
    at: "2026-10-21T15:00",
    tags: ["launch"],
    text: "First 24 hours after launch: 212 self-serve signups, 31 warehouses connected and 4 paid Starter subscriptions.",
  },

  // The October incident.
  {
    key: "incident-oct",
    at: "2026-10-23T14:12",
    recorded: "2026-10-23T16:30",
    tags: ["incident"],
    text: "October incident: SEV-2 on Friday, October 23. Dashboard queries timed out for 47 minutes, from 14:12 to 14:59 UTC, for every customer on the ClickHouse cluster.",
  },
  {
    key: "incident-oct-cause",
    at: "2026-10-23T14:12",
    recorded: "2026-10-24T10:00",
    updated: "2026-10-26T18:00",
    tags: ["incident", "pipeline"],
    text: "Root cause of the October 23 incident, as confirmed at the postmortem: a one-off backfill of Acme's carrier table was scheduled with `0 14 * * *` instead of `0 2 * * *`, so it ran at peak time and saturated all three ClickHouse nodes.",
  },
  {
    key: "incident-oct-acme",
    at: "2026-10-23T15:00",
    recorded: "2026-10-23T17:10",
    tags: ["incident", "customer"],
    text: "Acme Logistics was hit hardest by the October incident: their Friday carrier review with 30 regional managers ran without dashboards, and Helen Park escalated to Marcus.",
  },
  {
    key: "incident-oct-ic",
    at: "2026-10-23T15:10",
    recorded: "2026-10-23T17:20",
    kind: "experience",
    tags: ["incident"],
    text: "I was incident commander for the October 23 SEV-2. Tomás and Sam killed the backfill at 14:51 and query latency was back to normal by 14:59.",
  },
  {
    at: "2026-10-23T14:15",
    recorded: "2026-10-23T16:00",
    scope: PLATFORM,
    tags: ["incident"],
    text: "Platform was paged at 14:15 UTC on October 23 for ClickHouse CPU above 95% on all nodes. Rafael ruled out a hardware fault and handed over to the Atlas on-call.",
  },
  {
    key: "incident-statuspage",
    at: "2026-10-23T16:00",
    recorded: "2026-10-24T09:00",
    tags: ["incident"],
    text: "The status page went up 19 minutes after the first alert on October 23; the delay was because nobody on the Atlas on-call rotation owned the status page.",
  },
  ...notes("doc-postmortem-2026-10-26", "2026-10-26T16:00", [
    {
      key: "postmortem-runbook",
      tags: ["incident", "retro"],
      text: "October 23 postmortem: the on-call runbook had no step for killing a running ClickHouse query, and finding the query ID took 20 of the 47 minutes.",
    },
    {
      key: "tomas-circuit-breaker",
      tags: ["incident", "action-item"],
      text: "Postmortem action item: Tomás to add a per-query timeout and a circuit breaker to the dashboard API, so an overloaded cluster returns a clear error instead of hanging. Due November 6.",
    },
    {
      key: "tomas-handoff-doc",
      tags: ["incident", "action-item"],
      text: "Postmortem action item: Tomás to write the Atlas on-call handoff doc, including who owns the status page, due November 3.",
    },
    {
      key: "sam-replica",
      tags: ["incident", "action-item", "pipeline"],
      text: "Postmortem action item: Sam to move all backfills to a separate ClickHouse replica with resource limits, due November 13.",
    },
    {
      key: "lena-cron-check",
      tags: ["incident", "action-item", "quality"],
      text: "Postmortem action item: Lena to add a CI check that rejects backfill schedules between 06:00 and 20:00 UTC, due November 10.",
    },
  ]),
  {
    key: "platform-fourth-node",
    at: "2026-10-26T17:30",
    scope: PLATFORM,
    tags: ["incident", "action-item"],
    text: "Platform follow-up from the October 23 postmortem: Rafael adds a fourth ClickHouse node by November 20; the platform group has approved the spend.",
  },
  {
    key: "acme-credit",
    at: "2026-10-26T19:00",
    tags: ["customer", "incident"],
    text: "Marcus offered Acme Logistics a one-month service credit after the October incident. Helen Park accepted and said the renewal conversation can still go ahead in January.",
  },
  {
    at: "2026-10-26T20:00",
    scope: FINANCE,
    tags: ["incident", "customer"],
    text: "Finance booked $18,400 in SLA credits to Acme Logistics for the October 23 incident and flagged their renewal as $96,000 of at-risk revenue.",
  },
  ...notes("doc-weekly-2026-10-27", "2026-10-27T15:00", [
    {
      key: "week-one",
      tags: ["launch"],
      text: "One week after launch: 640 signups, 47 paying accounts on Starter or Team, and 3 Enterprise trials in negotiation.",
    },
    {
      key: "pricing-signal",
      tags: ["pricing"],
      text: "Early pricing signal: 70% of new paying accounts picked Team over Starter, and 41% chose annual billing.",
    },
    {
      key: "open-actions-review",
      tags: ["action-item", "meeting"],
      text: "Open action items reviewed at the weekly: Tomás owns the dashboard API circuit breaker (due Nov 6) and the on-call handoff doc (due Nov 3); Sam owns the backfill replica (due Nov 13).",
    },
    {
      key: "tomas-quarantine",
      tags: ["action-item", "quality"],
      text: "Action item: Tomás to pair with Elif on the 13 quarantined tests and fix or delete each one by November 14.",
    },
    {
      key: "tomas-elif-onboarding",
      tags: ["action-item", "sso"],
      text: "Elif is taking over SSO ownership from Jonah. Action item: Tomás to finish her onboarding on the identity service by November 13.",
    },
    {
      key: "next-release",
      tags: ["roadmap"],
      text: "The first post-launch release on November 17 will carry custom SQL metrics and the SCIM provisioning Brightwell asked for.",
    },
  ]),
  {
    key: "acme-converted",
    at: "2026-10-28T17:00",
    tags: ["customer", "pricing"],
    text: "Acme Logistics converted from the pilot to a paid Team plan: 14 editor seats and 52 free viewers, billed annually with the 30% first-year pilot discount.",
  },
  {
    key: "bw-scim",
    at: "2026-10-28T18:00",
    tags: ["customer"],
    text: "Brightwell Health wants to add their billing department, about 25 people, and asked for SCIM so joiners and leavers sync from Entra ID automatically.",
  },
  ...notes("doc-retro-2026-10-29", "2026-10-29T15:30", [
    {
      key: "launch-retro",
      tags: ["retro", "launch"],
      text: "Launch retro: the team is proud of the October 20 launch itself, and puts both slips down to treating SSO as a normal feature instead of a security project with outside dependencies.",
    },
    {
      tags: ["retro"],
      text: "Launch retro, keep and stop: keep the risks-and-blockers section at the weekly sync; stop running one-off data jobs without a second reviewer.",
    },
    {
      key: "lesson-pentest",
      tags: ["retro", "sso"],
      text: "Lesson from the launch retro: book external security testing when a feature is designed, not when it is finished.",
    },
    {
      kind: "experience",
      tags: ["retro"],
      text: "I facilitated the launch retro and promised to write up the SSO lessons for the other Northwind product teams.",
    },
  ]),
  {
    key: "tomas-1on1-oct",
    at: "2026-10-29T10:30",
    doc: "doc-1on1-tomas-2026-10-29",
    kind: "experience",
    tags: ["action-item", "incident"],
    text: "In our 1:1, Tomás said the circuit breaker is about half done and might need until November 9. I asked him to raise it at the weekly rather than let it slip quietly.",
  },
  {
    key: "acme-closeout",
    at: "2026-10-29T16:00",
    doc: "doc-acme-closeout-2026-10-29",
    tags: ["customer"],
    text: "At the pilot close-out, Acme Logistics said scheduled reports are the feature they would miss most; their main ask for next quarter is carrier-level cost dashboards.",
  },
  {
    key: "handoff-reminder",
    at: "2026-10-30T11:00",
    kind: "experience",
    tags: ["action-item"],
    text: "I reminded Tomás that the on-call handoff doc is due November 3; he said a draft is with Lena for review.",
  },
  {
    at: "2026-10-30T15:00",
    tags: ["hiring"],
    text: "Sam and I screened the first four applicants for the data engineer role; two have run ClickHouse in production.",
    kind: "experience",
  },
];

// ---------------------------------------------------------------------------------------------
// Observations (tier 2): consolidated beliefs over the facts above.
// ---------------------------------------------------------------------------------------------

const OBSERVATION_SPECS: ObservationSpec[] = [
  {
    tags: ["launch", "decision"],
    from: ["launch-sept15", "launch-oct6", "launch-oct20", "launch-final", "launched"],
    text: "The Atlas launch date moved twice: from September 15 to October 6 (decided September 1 because of the SSO blocker), then to October 20 at the September 22 go/no-go. October 20 was declared final, and Atlas launched that day.",
  },
  {
    tags: ["launch", "sso"],
    from: ["sso-encrypted", "launch-oct6", "pentest-findings", "launch-oct20-reasons", "launch-retro"],
    text: "Both launch slips trace back to SSO: first encrypted assertions that needed a platform-owned library upgrade, then two medium pen test findings that could not be retested before October 7.",
  },
  {
    tags: ["launch", "decision"],
    from: ["launch-no-sso-rejected", "dana-slip-ok", "launch-final"],
    text: "Leadership consistently chose a later launch with SSO over an earlier one without it, because Brightwell is the only Enterprise deal in the Q4 forecast.",
  },
  {
    tags: ["sso", "blocker"],
    from: [
      "sso-encrypted",
      "sso-needs-platform",
      "sso-platform-slot",
      "pentest-slot",
      "pentest-findings",
      "bw-needs-retest",
    ],
    text: "What blocked the SSO rollout, in order: node-saml 3.2 could not decrypt Brightwell's AES-256-GCM assertions; the upgrade had to wait for the platform change freeze to end on September 9; then Halcyon's pen test found an open redirect and a missing InResponseTo check that Brightwell required fixed and retested.",
  },
  {
    tags: ["sso", "customer", "blocker"],
    from: ["retest-pass", "bw-approved", "bw-sso-live"],
    text: "The SSO rollout is no longer blocked: Halcyon's retest closed both findings on October 8, and Brightwell went live on Entra ID on October 14 with 58 users.",
  },
  {
    tags: ["sso"],
    from: ["sso-risk", "elif-offer", "tomas-elif-onboarding"],
    text: "SSO ownership is moving from Jonah Weiss to Elif Demir, who was hired partly for her SAML experience; Tomás is responsible for her onboarding.",
  },
  {
    tags: ["pricing", "decision"],
    from: ["pricing-tiers", "enterprise-floor", "viewer-seats", "annual-discount", "pricing-page-final"],
    text: "Atlas pricing is per editor seat: Starter $29 and Team $59 per month, Enterprise on an annual contract from $24,000. Viewers are free on Team and Enterprise, and annual billing is 15% off.",
  },
  {
    tags: ["pricing", "customer"],
    from: ["acme-viewers", "viewer-seats"],
    text: "Free viewer seats came straight out of the Acme Logistics pilot: Acme would not pay $59 a seat for 40 managers who only read dashboards.",
  },
  {
    tags: ["pricing", "sso"],
    from: ["enterprise-floor", "sso-no-addon"],
    text: "SSO is deliberately Enterprise-only rather than a paid add-on, to give customers one clear reason to upgrade.",
  },
  {
    tags: ["pricing", "customer"],
    from: ["pilot-discount", "acme-converted"],
    text: "Pilot customers get 30% off the first year if they sign before December 31; Acme used it for its 14-seat Team plan.",
  },
  {
    tags: ["pricing", "launch"],
    from: ["pricing-signal", "week-one"],
    text: "Team is the plan most new customers choose (70% of paying accounts in the first week), and about four in ten pay annually.",
  },
  {
    tags: ["customer"],
    from: ["acme-kickoff", "acme-results", "acme-converted", "acme-closeout"],
    text: "The Acme Logistics pilot succeeded: it replaced their Monday late-shipments spreadsheet, escalations fell 22%, and Acme converted to a paid Team plan on October 28.",
  },
  {
    tags: ["customer"],
    from: ["acme-feedback-csv", "acme-feedback-email", "acme-viewers", "acme-closeout"],
    text: "What Acme Logistics kept asking for in the pilot: a higher CSV export limit, scheduled email reports for managers who never log in, free read-only seats and, next, carrier-level cost dashboards.",
  },
  {
    tags: ["customer", "incident"],
    from: ["incident-oct-acme", "acme-credit"],
    text: "Acme Logistics was the customer hurt most by the October 23 incident; the relationship held after a one-month service credit.",
  },
  {
    tags: ["customer", "sso"],
    from: ["bw-requires-sso", "bw-waiting", "bw-sso-live", "bw-scim"],
    text: "Brightwell Health's growth depends on identity features: SSO unlocked their 60-person team, and SCIM is the next requirement before they add billing.",
  },
  {
    tags: ["customer"],
    from: ["acme-kickoff", "bw-people", "bw-no-unencrypted"],
    text: "Helen Park sponsors Atlas at Acme and Nadia Rahman at Brightwell; Owen Brandt is Brightwell's security gatekeeper and signs off on anything that touches identity.",
  },
  {
    tags: ["pipeline"],
    from: ["pipeline-decision", "pipeline-dualwrite", "pipeline-late-fixed", "cutover-done", "postgres-off"],
    text: "The ClickHouse migration ran from May to October 13: dual-write from July 8, a late-events fix in August, the dashboard cutover on September 29 and the Postgres batch load switched off on October 13.",
  },
  {
    tags: ["pipeline", "blocker"],
    from: ["pipeline-late-events", "pipeline-replacing", "pipeline-late-fixed"],
    text: "Late-arriving events (about 3% arrive more than 48 hours late) were the migration's main technical blocker, solved with a ReplacingMergeTree keyed on event id.",
  },
  {
    tags: ["pipeline"],
    from: ["cutover-done", "incident-oct-cause"],
    text: "ClickHouse made dashboards much faster (median load 4.1 s down to 0.6 s), but the three-node cluster has little headroom for heavy backfills.",
  },
  {
    tags: ["pipeline", "hiring"],
    from: ["dana-second-de", "sam-spof", "de-req"],
    text: "Sam Okafor is a single point of failure for the pipeline, which is why a second data engineer was approved for January.",
  },
  {
    tags: ["quality"],
    from: ["flaky-61", "flaky-31", "flaky-schemas", "flaky-13"],
    text: "The flaky-test epidemic peaked in August at 31 quarantined tests; per-worker database schemas fixed the biggest cluster, and 13 were left at the October 13 freeze.",
  },
  {
    tags: ["quality", "decision"],
    from: ["flaky-quarantine", "flaky-merge-block"],
    text: "Team rule for flaky tests: quarantine them behind @flaky, and block merges to main whenever the quarantine list goes above 20.",
  },
  {
    tags: ["quality"],
    from: ["flaky-shared-db"],
    text: "Most flaky tests came from shared state, above all one seeded database shared by parallel Playwright workers.",
  },
  {
    tags: ["incident"],
    from: ["incident-oct", "incident-oct-cause", "incident-oct-ic"],
    text: "The October incident was a 47-minute SEV-2 on October 23: a backfill scheduled for 14:00 UTC instead of 02:00 saturated the ClickHouse cluster and dashboard queries timed out for every customer.",
  },
  {
    tags: ["incident", "action-item"],
    from: ["tomas-circuit-breaker", "tomas-handoff-doc", "sam-replica", "lena-cron-check"],
    text: "Open follow-ups from the October 23 postmortem: Tomás's dashboard API circuit breaker (Nov 6) and on-call handoff doc (Nov 3), Sam's backfill replica (Nov 13) and Lena's CI check on backfill schedules (Nov 10).",
  },
  {
    tags: ["incident"],
    from: ["incident-june", "incident-aug", "incident-oct"],
    text: "Atlas has had three incidents: a late nightly load in June, a SEV-3 consumer lag on August 11 that no customer noticed, and the October 23 SEV-2 — the only one customers felt.",
  },
  {
    tags: ["incident"],
    from: ["incident-statuspage", "postmortem-runbook"],
    text: "The October incident ran long for process reasons: the runbook had no step for killing a ClickHouse query, and nobody on call owned the status page.",
  },
  {
    tags: ["action-item"],
    from: [
      "tomas-circuit-breaker",
      "tomas-handoff-doc",
      "tomas-quarantine",
      "tomas-elif-onboarding",
      "tomas-1on1-oct",
      "handoff-reminder",
    ],
    text: "Tomás Rivera's open action items: the dashboard API timeout and circuit breaker (due Nov 6, may slip to Nov 9), the on-call handoff doc (due Nov 3, draft in review), the 13 quarantined tests with Elif (Nov 14) and Elif's identity-service onboarding (Nov 13).",
  },
  {
    tags: ["action-item"],
    from: ["tomas-ci-split", "tomas-platform-signoff", "risks-section", "tomas-release-branch"],
    text: "Tomás's earlier action items are closed: the CI split (July 2), platform sign-off for node-saml 5 (September 3), the risks section in the weekly agenda (September 8) and the release branch and regression (October 13–16).",
  },
  {
    tags: ["hiring"],
    from: ["hiring-req", "elif-offer", "elif-accepted", "elif-started"],
    text: "Elif Demir was hired as the senior backend engineer for her SAML and SCIM experience; she accepted on August 21 and started on October 19.",
  },
  {
    tags: ["retro"],
    from: ["risks-section", "launch-retro"],
    text: "A recurring retro theme is that risks surfaced on Slack before the weekly sync; the risks-and-blockers section added in September is something the team wants to keep.",
  },
  {
    tags: ["retro", "sso"],
    from: ["launch-retro", "lesson-pentest", "saml-checklist"],
    text: "The team's main lesson from the launch: treat SSO as a security project with outside dependencies, and book pen testing when the feature is designed.",
  },
  {
    tags: ["design"],
    from: ["usability-sessions", "design-builder"],
    text: "Priya's design choices are driven by usability sessions: the drag-to-grid dashboard builder beat the notebook prototype because test users never opened the notebook.",
  },
  {
    tags: ["roadmap"],
    from: ["cut-sql-metrics", "next-release", "bw-scim"],
    text: "The first post-launch release on November 17 picks up what v1 cut or customers asked for: custom SQL metrics and SCIM provisioning.",
  },
  {
    scope: PLATFORM,
    tags: ["sso"],
    from: ["sso-platform-slot", "platform-signoff"],
    text: "The platform team owns the identity service: Atlas identity work has to fit into platform change windows and needs a platform reviewer, currently Kofi Mensah.",
  },
  {
    scope: PLATFORM,
    tags: ["roadmap"],
    from: ["platform-freeze", "sso-platform-slot"],
    text: "Platform change freezes, such as August 24 to September 8 for Kubernetes 1.31, block every change to shared services, identity fixes included.",
  },
  {
    scope: PLATFORM,
    tags: ["incident", "pipeline"],
    from: ["platform-capacity", "platform-fourth-node"],
    text: "The three 16-vCPU ClickHouse nodes were sized for dashboards, not backfills; a fourth node is due November 20 after the October 23 incident.",
  },
  {
    scope: FINANCE,
    tags: ["pricing", "decision"],
    from: ["finance-pricing"],
    text: "Finance plans to raise Team to $69 per seat and the Enterprise floor to $40,000 from January 2027, and has not told the product team yet.",
  },
];

// ---------------------------------------------------------------------------------------------
// Mental models (tier 1) and skills.
// ---------------------------------------------------------------------------------------------

interface ModelSpec {
  id: string;
  name: string;
  sourceQuery: string;
  tags: Tag[];
  content: string;
  refreshedAt: string | null;
  staleOverride?: "stale" | "fresh";
  /** Facts the current content was written from. */
  basedOn?: string[];
  /** When the current version was saved; defaults to refreshedAt. Set when only the override changed. */
  savedAt?: string;
  /** Earlier versions, oldest first; the current version is history length + 1. */
  history?: { refreshedAt: string; basedOn: string[] /** Defaults to the current content. */; content?: string }[];
}

const LAUNCH_QUERY = "What is the Atlas launch date and what does the launch depend on?";
const PRICING_QUERY = "What are Atlas's prices and pricing decisions?";

const MODEL_SPECS: ModelSpec[] = [
  {
    id: "mm-launch-plan",
    name: "Launch plan",
    sourceQuery: LAUNCH_QUERY,
    tags: ["launch"],
    refreshedAt: "2026-09-10T17:00",
    basedOn: ["launch-oct6", "launch-no-sso-rejected", "sso-needs-platform", "pentest-slot", "acme-results"],
    content: `**Atlas GA: Tuesday, October 6, 2026** (moved from September 15 on September 1).
- Why: Brightwell's SSO needs node-saml 5 in the platform-owned identity service, and that upgrade cannot ship until the platform freeze ends on September 8.
- September 15 stays as a code freeze for everything except SSO.
- Halcyon pen test of the SSO flow: September 14–18. Go/no-go review: September 22.
- Launch customers: Acme Logistics (reference) and Brightwell Health (Enterprise, needs SSO).
- Owners: Maya (plan and comms), Tomás (release), Marcus (customers).`,
    history: [
      {
        refreshedAt: "2026-06-02T10:00",
        basedOn: ["launch-sept15", "sso-risk"],
        content: `**Atlas GA: Tuesday, September 15, 2026.**
- v1 scope: dashboard builder, scheduled email reports, warehouse connectors, enterprise SSO.
- Biggest risk: SAML SSO (owner Jonah Weiss); nobody on the team has shipped it before.
- Launch customers: Acme Logistics pilot starts June 8.`,
      },
    ],
  },
  {
    id: "mm-pricing",
    name: "Pricing",
    sourceQuery: PRICING_QUERY,
    tags: ["pricing"],
    refreshedAt: "2026-10-29T16:00",
    basedOn: [
      "pricing-tiers",
      "enterprise-floor",
      "viewer-seats",
      "annual-discount",
      "pilot-discount",
      "sso-no-addon",
      "pricing-page-final",
      "acme-converted",
      "pricing-signal",
    ],
    content: `Atlas is priced **per editor seat**; people who only read dashboards are free.
- **Starter** $29 and **Team** $59 per editor seat per month (decided June 10).
- **Viewers** free and unlimited on Team and Enterprise (July 29, after the Acme pilot).
- **Annual billing** 15% off Starter and Team (August 12); Enterprise is annual only.
- **Enterprise** from $24,000 a year, the only tier with SSO, audit logs and the 99.9% SLA; SSO is not sold as an add-on (October 7).
- **Pilot discount** 30% off year one for pilots signing before December 31 (September 16). Acme took it on a 14-seat Team plan.
- Early signal: 70% of new paying accounts choose Team.`,
    history: [
      {
        refreshedAt: "2026-06-11T12:00",
        basedOn: ["pricing-tiers", "enterprise-floor"],
        content: `Per-seat pricing in three tiers: Starter $29, Team $59, Enterprise custom (floor $24,000 a year).
- Enterprise is the only tier with SSO, audit logs and the SLA.
- Open question: how to price viewer-only users (revisit after the Acme pilot).`,
      },
      {
        refreshedAt: "2026-08-13T09:00",
        basedOn: ["pricing-tiers", "viewer-seats", "annual-discount"],
        content: `Per editor seat: Starter $29, Team $59, Enterprise custom from $24,000 a year.
- Viewers are free on Team and Enterprise (July 29).
- Annual billing is 15% off Starter and Team (August 12).`,
      },
    ],
  },
  {
    id: "mm-sso-rollout",
    name: "SSO rollout",
    sourceQuery: "What is the status of the SSO rollout and what is blocking it?",
    tags: ["sso"],
    refreshedAt: "2026-09-04T16:00",
    basedOn: ["sso-encrypted", "sso-needs-platform", "pentest-slot", "platform-signoff"],
    content: `**Status: blocked.** Brightwell's Entra ID tenant sends AES-256-GCM encrypted assertions that node-saml 3.2 cannot decrypt.
- Fix: upgrade the identity service to node-saml 5. Platform owns the service; Kofi Mensah reviews.
- Earliest platform slot: September 9, after the Kubernetes 1.31 freeze.
- Brightwell also requires a Halcyon Security pen test, booked for September 14–18.
- Owner: Jonah Weiss. Platform contact: Rafael Costa.`,
  },
  {
    id: "mm-team-owners",
    name: "Team & owners",
    sourceQuery: "Who is on the Atlas team, what does each person own, and what is open for them?",
    tags: [],
    refreshedAt: "2026-10-31T09:00",
    basedOn: [
      "tomas-circuit-breaker",
      "tomas-handoff-doc",
      "tomas-quarantine",
      "sam-replica",
      "lena-cron-check",
      "elif-started",
    ],
    content: `- **Maya Chen**: product; owns the launch plan, pricing and the customer pilots (with Marcus Bell).
- **Tomás Rivera**: engineering lead; open: dashboard API circuit breaker (Nov 6), on-call handoff doc (Nov 3), quarantined tests with Elif (Nov 14), Elif's onboarding (Nov 13).
- **Priya Nair**: design; dashboard builder, onboarding, SSO settings page.
- **Sam Okafor**: data engineering; ClickHouse pipeline, backfill replica (Nov 13), hiring a second data engineer.
- **Lena Fischer**: QA; flaky-test quarantine list, backfill-schedule CI check (Nov 10).
- **Elif Demir** (started Oct 19) takes SSO over from **Jonah Weiss**; **Aiko Tanaka** owns frontend and the docs site.
- Outside the team: Dana Whitfield (VP Product), Marcus Bell (sales), Rafael Costa and Kofi Mensah (platform).`,
  },
  {
    id: "mm-customer-pilots",
    name: "Customer pilots",
    sourceQuery: "How did the Acme Logistics and Brightwell Health pilots go?",
    tags: ["customer"],
    refreshedAt: "2026-10-30T22:00",
    basedOn: ["acme-results", "acme-converted", "acme-credit", "acme-closeout", "bw-sso-live", "bw-scim"],
    content: `- **Acme Logistics** (sponsor Helen Park): pilot from June 8; replaced the Monday late-shipments spreadsheet and cut escalations 22%.
  - Converted October 28: Team plan, 14 editors, 52 free viewers, annual, 30% pilot discount.
  - Hit hardest by the October 23 incident; accepted a one-month credit. Next ask: carrier-level cost dashboards.
- **Brightwell Health** (sponsor Nadia Rahman, security Owen Brandt): SSO on Entra ID live October 14 with 58 users.
  - Next: SCIM provisioning and about 25 billing users.`,
  },
  {
    id: "mm-quality",
    name: "Quality & flaky tests",
    sourceQuery: "How bad are the flaky tests and what is the team doing about them?",
    tags: ["quality"],
    refreshedAt: "2026-08-26T10:00",
    // Pinned fresh by hand in October: Lena's Monday post is where the team checks the real numbers.
    staleOverride: "fresh",
    basedOn: ["flaky-quarantine", "flaky-31", "flaky-merge-block", "flaky-shared-db"],
    savedAt: "2026-10-05T09:15",
    history: [
      {
        refreshedAt: "2026-08-26T10:00",
        basedOn: ["flaky-quarantine", "flaky-31", "flaky-merge-block", "flaky-shared-db"],
      },
    ],
    content: `- Flaky end-to-end tests are quarantined with \`@flaky\`; Lena posts the list every Monday.
- Merges to main are blocked while the list is above 20 (it reached 31 on August 6).
- Biggest known cause: parallel Playwright workers share one seeded Postgres database; Aiko is moving each worker to its own schema.
- Splitting CI into parallel unit and end-to-end jobs cut wall time from 34 to 19 minutes.`,
  },
  {
    id: "mm-pipeline",
    name: "Data pipeline migration",
    sourceQuery: "Where is the ClickHouse pipeline migration?",
    tags: ["pipeline"],
    refreshedAt: null,
    // Written by hand in July and never regenerated.
    savedAt: "2026-07-24T12:00",
    content: `Moving dashboards from the nightly Postgres batch load to incremental ingestion into ClickHouse (owner: Sam Okafor).
- Dual-write started July 8; row counts match within 0.02%.
- Open problem: about 3% of events arrive more than 48 hours late.
- Cutover: not scheduled yet.`,
  },
  {
    id: "mm-incident-review",
    name: "Incident review",
    sourceQuery: "What happened in Atlas incidents and what follow-ups are open?",
    tags: ["incident"],
    refreshedAt: "2026-10-30T23:30",
    content: "Generating content...",
  },
  {
    id: "mm-hiring",
    name: "Hiring",
    sourceQuery: "Who are we hiring for Atlas and where does each role stand?",
    tags: ["hiring"],
    refreshedAt: "2026-10-30T19:00",
    // Flagged stale by hand: the data engineer search is moving faster than the memories say.
    staleOverride: "stale",
    basedOn: ["elif-accepted", "elif-started", "de-req"],
    savedAt: "2026-10-30T19:20",
    history: [{ refreshedAt: "2026-10-30T19:00", basedOn: ["elif-accepted", "elif-started", "de-req"] }],
    content: `- **Senior backend engineer**: Elif Demir, accepted August 21, started October 19; takes SSO over from Jonah.
- **Second data engineer**: req approved for January; Sam wrote the job description and is screening.`,
  },
];

/**
 * The demo suite (docs/experiments.md): ten questions over the five skills with expectations the offline model
 * meets, so the suites page and a first experiment have something to show on first start.
 */
const SUITES: Bundle["suites"] = [
  {
    name: "demo-tour",
    description: "Ten questions over the five skills; every expectation holds with the offline model.",
    questions: [
      {
        question: "How much does the Team plan cost?",
        skill: "recap",
        expect: { status: ["done"], mustCite: ["mm-pricing"], contains: ["$59"], maxLlmCalls: 6 },
      },
      {
        question: "When did Atlas launch?",
        skill: "recap",
        expect: { status: ["done"], mustCite: ["f-152"], contains: ["October 20"], maxLlmCalls: 6 },
      },
      {
        question: "What caused the October 23 incident?",
        skill: "recap",
        expect: { status: ["done"], mustCite: ["f-157"], contains: ["backfill"], maxLlmCalls: 6 },
      },
      {
        question: "What did we decide about the launch date?",
        skill: "decisions",
        expect: { status: ["done"], mustCite: ["f-119"], contains: ["October 20"], maxLlmCalls: 6 },
      },
      {
        question: "What does Sam still have to do?",
        skill: "actionables",
        expect: { status: ["done"], mustCite: ["f-165"], contains: ["Sam"], maxLlmCalls: 6 },
      },
      {
        question: "What action items came out of the incident retro?",
        skill: "actionables",
        expect: { status: ["done"], mustCite: ["f-128"], maxLlmCalls: 6 },
      },
      {
        question: "What is blocking the SSO rollout?",
        skill: "blockers",
        expect: { status: ["done"], mustCite: ["o-005"], contains: ["Halcyon"], maxLlmCalls: 6 },
      },
      {
        question: "What blocked the data pipeline migration?",
        skill: "blockers",
        expect: { status: ["done"], mustCite: ["o-018"], contains: ["late-arriving"], maxLlmCalls: 8 },
      },
      {
        question: "Prepare me for the Acme Logistics renewal call",
        skill: "prep",
        expect: { status: ["done"], mustCite: ["f-168"], contains: ["Helen Park"], maxLlmCalls: 6 },
      },
      {
        question: "Who is the CEO of Globex?",
        skill: "recap",
        expect: { status: ["no_evidence"], mustNotCite: ["mm-pricing"], notContains: ["CEO of Globex is"] },
      },
    ],
  },
];

const SKILLS: Bundle["skills"] = [
  {
    id: "skill-recap",
    name: "recap",
    mission:
      "Catch the reader up on what happened on the Atlas team over the period or topic they ask about. Lead with the outcome that matters most, then walk through the events that led to it in date order, naming who was involved and when things were decided or done. Use consolidated observations for the overall picture and raw facts for specifics, and when memories disagree, say which is newer and go with it.",
    disposition: ["concise", "chronological", "neutral"],
    retrieval: { tags: [], types: ["observation", "episodic"], scope: "personal" },
    budget: "mid",
    anchorEvery: 4,
    outputFormat: "markdown: a two-sentence summary, then dated bullets",
    answerFormat: "prose",
    version: 1,
  },
  {
    id: "skill-decisions",
    name: "decisions",
    mission:
      "Report what the team decided about the topic in question: the decision itself, the date, who made or approved it and the reason given. If a decision was later reversed or superseded, lead with the latest one and mention what it replaced. Do not present proposals, opinions or open debates as decisions.",
    disposition: ["concise", "skeptical", "evidence-first"],
    retrieval: { tags: ["decision"], types: ["observation", "episodic"], scope: "personal" },
    budget: "mid",
    anchorEvery: 4,
    outputFormat: "markdown: a short answer paragraph, then bullets (decision, date, who, why)",
    answerFormat: "prose",
    version: 1,
  },
  {
    id: "skill-actionables",
    name: "actionables",
    mission:
      "List the action items that match the question, each with its owner and due date. Separate items that are still open from items the memories show as done, and never mark an item done without a memory that says so. When a due date has moved, give the latest one.",
    disposition: ["practical", "precise", "owner-focused"],
    retrieval: { tags: ["action-item"], types: ["episodic"], scope: "personal" },
    budget: "mid",
    anchorEvery: 4,
    outputFormat: "markdown checklist with owner and due date",
    answerFormat: "prose",
    version: 1,
  },
  {
    id: "skill-blockers",
    name: "blockers",
    mission:
      "Explain what is blocking the work in question: the blocker, who or what it depends on, what would unblock it and since when it has been blocking. Check whether newer memories show the blocker as resolved, and say so plainly if it is.",
    disposition: ["direct", "skeptical", "evidence-first"],
    retrieval: { tags: ["blocker"], types: ["observation", "episodic"], scope: "personal" },
    budget: "mid",
    anchorEvery: 4,
    outputFormat: "markdown: one line per blocker with owner, what unblocks it, and since when",
    answerFormat: "prose",
    version: 1,
  },
  {
    id: "skill-prep",
    name: "prep",
    mission:
      "Prepare the reader for an upcoming meeting or conversation on the topic asked about. Give the few facts they must have in their head walking in, the latest status of anything likely to come up, and the open questions worth raising. Keep it short enough to read in two minutes.",
    disposition: ["brief", "anticipatory", "practical"],
    retrieval: { tags: [], types: ["observation", "episodic"], scope: "personal" },
    budget: "low",
    anchorEvery: 4,
    outputFormat: "markdown: three to five bullets to read before the meeting, then open questions",
    answerFormat: "prose",
    version: 1,
  },
];

// ---------------------------------------------------------------------------------------------
// Assembly
// ---------------------------------------------------------------------------------------------

export function buildDemoBundle(): Bundle {
  const specs = FACT_SPECS.map((spec, index) => {
    if (spec.at === undefined) throw new Error(`fact "${spec.text.slice(0, 40)}" has no time`);
    const occurredAt = spec.at === null ? null : iso(spec.at);
    // Notes land in memory a little after the moment they describe; the lag varies so times look lived-in.
    const recordedAt = spec.recorded ? iso(spec.recorded) : plusMinutes(occurredAt!, 20 + ((index * 37) % 140));
    return { spec, occurredAt, recordedAt, index };
  });
  // Ids follow the order things happened, so f-001 is the oldest memory.
  specs.sort((a, b) => (a.occurredAt ?? a.recordedAt).localeCompare(b.occurredAt ?? b.recordedAt) || a.index - b.index);

  const idByKey = new Map<string, string>();
  const updatedById = new Map<string, string>();
  const facts: Bundle["facts"] = specs.map(({ spec, occurredAt, recordedAt }, i) => {
    const id = `f-${String(i + 1).padStart(3, "0")}`;
    if (spec.key) {
      if (idByKey.has(spec.key)) throw new Error(`duplicate fact key ${spec.key}`);
      idByKey.set(spec.key, id);
    }
    const updatedAt = spec.updated ? iso(spec.updated) : undefined;
    updatedById.set(id, updatedAt ?? recordedAt);
    return {
      id,
      text: spec.text,
      kind: spec.kind ?? "world",
      tags: spec.tags,
      scope: spec.scope ?? "personal",
      occurredAt,
      recordedAt,
      ...(updatedAt ? { updatedAt } : {}),
      ...(spec.doc ? { documentId: spec.doc } : {}),
    };
  });

  const idsFor = (keys: string[]): string[] =>
    keys.map((key) => {
      const id = idByKey.get(key);
      if (!id) throw new Error(`unknown fact key ${key}`);
      return id;
    });

  const observations: Bundle["observations"] = OBSERVATION_SPECS.map((spec, i) => {
    const sourceFactIds = idsFor(spec.from);
    const newestSource = sourceFactIds
      .map((id) => updatedById.get(id)!)
      .sort()
      .at(-1)!;
    return {
      id: `o-${String(i + 1).padStart(3, "0")}`,
      text: spec.text,
      tags: spec.tags,
      scope: spec.scope ?? "personal",
      sourceFactIds,
      updatedAt: spec.updated ? iso(spec.updated) : plusMinutes(newestSource, 90 + ((i * 53) % 120)),
    };
  });

  const mentalModels: Bundle["mentalModels"] = MODEL_SPECS.map((spec) => {
    const history = (spec.history ?? []).map((h, i) => ({
      name: spec.name,
      sourceQuery: spec.sourceQuery,
      content: h.content ?? spec.content,
      tags: spec.tags,
      refreshedAt: iso(h.refreshedAt),
      staleOverride: null,
      version: i + 1,
      createdAt: iso(h.refreshedAt),
      basedOnIds: idsFor(h.basedOn),
    }));
    return {
      id: spec.id,
      name: spec.name,
      sourceQuery: spec.sourceQuery,
      content: spec.content,
      tags: spec.tags,
      refreshedAt: spec.refreshedAt ? iso(spec.refreshedAt) : null,
      staleOverride: spec.staleOverride ?? null,
      version: history.length + 1,
      basedOnIds: idsFor(spec.basedOn ?? []),
      updatedAt: spec.savedAt ? iso(spec.savedAt) : spec.refreshedAt ? iso(spec.refreshedAt) : null,
      history,
    };
  });

  return {
    version: 1,
    bank: { id: "demo", name: "Northwind Atlas — product team", permittedTeams: ["platform"] },
    facts,
    observations,
    mentalModels,
    skills: SKILLS,
    suites: SUITES,
  };
}

// ---------------------------------------------------------------------------------------------
// Serialization: 2-space JSON laid out the way `biome format` lays it out (line width 120), so the
// committed file passes `npm run lint` untouched and stays byte-identical to the generator's output.
// ---------------------------------------------------------------------------------------------

const LINE_WIDTH = 120;

function renderValue(value: unknown, indent: string, lineStart: number, trailing: number): string {
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    if (value.every((v) => v === null || typeof v !== "object")) {
      const flat = `[${value.map((v) => JSON.stringify(v)).join(", ")}]`;
      if (lineStart + [...flat].length + trailing <= LINE_WIDTH) return flat;
    }
    const inner = `${indent}  `;
    const items = value.map((v, i) => `${inner}${renderValue(v, inner, inner.length, i < value.length - 1 ? 1 : 0)}`);
    return `[\n${items.join(",\n")}\n${indent}]`;
  }
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    if (entries.length === 0) return "{}";
    const inner = `${indent}  `;
    const lines = entries.map(([k, v], i) => {
      const prefix = `${inner}${JSON.stringify(k)}: `;
      return `${prefix}${renderValue(v, inner, [...prefix].length, i < entries.length - 1 ? 1 : 0)}`;
    });
    return `{\n${lines.join(",\n")}\n${indent}}`;
  }
  return JSON.stringify(value);
}

export function renderDemoBundle(bundle: Bundle = buildDemoBundle()): string {
  return `${renderValue(bundle, "", 0, 0)}\n`;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  writeFileSync(DEMO_BANK_PATH, renderDemoBundle());
  console.log(`wrote ${DEMO_BANK_PATH}`);
}
