import type { BundleInput } from "@/lib/contracts/bundle";

/** A small bank: personal and team facts, one observation, two mental models, one skill. */
export function sampleBundle(): BundleInput {
  return {
    version: 1,
    bank: { id: "acme", name: "Acme", permittedTeams: ["core"] },
    facts: [
      {
        id: "f1",
        text: "The billing service migration to Postgres finished in March.",
        kind: "world",
        tags: ["billing", "infra"],
        scope: "personal",
        occurredAt: "2025-03-10T09:00:00+02:00",
        recordedAt: "2025-03-10T10:00:00Z",
      },
      {
        id: "f2",
        text: "Dana prefers async standups over meetings.",
        kind: "experience",
        tags: ["team"],
        scope: "personal",
        recordedAt: "2025-03-11T10:00:00Z",
        updatedAt: "2025-03-12T10:00:00Z",
      },
      {
        id: "f3",
        text: "Core team secret: the billing launch date is June 1.",
        kind: "world",
        tags: ["billing"],
        scope: "team:core",
        recordedAt: "2025-03-13T10:00:00Z",
      },
      {
        id: "f4",
        text: "Growth team secret: billing discounts for Q3.",
        kind: "world",
        tags: ["billing"],
        scope: "team:growth",
        recordedAt: "2025-03-14T10:00:00Z",
        documentId: "doc-7",
      },
    ],
    observations: [
      {
        id: "o1",
        text: "Billing infrastructure is now on Postgres.",
        tags: ["billing"],
        scope: "personal",
        sourceFactIds: ["f1"],
        updatedAt: "2025-03-10T12:00:00Z",
      },
    ],
    mentalModels: [
      {
        id: "mm-billing",
        name: "Billing status",
        sourceQuery: "what is the state of billing?",
        content: "Billing runs on Postgres since March.",
        tags: ["billing"],
        refreshedAt: "2025-03-20T00:00:00Z",
        version: 2,
        history: [
          {
            version: 1,
            name: "Billing",
            sourceQuery: "billing?",
            content: "Generating content...",
            tags: ["billing"],
            refreshedAt: null,
            staleOverride: null,
            createdAt: "2025-03-01T00:00:00Z",
          },
        ],
      },
      {
        id: "mm-team",
        name: "Team habits",
        sourceQuery: "how does the team work?",
        content: "Dana likes async standups.",
        tags: [],
        refreshedAt: "2025-03-11T12:00:00Z",
      },
    ],
    skills: [
      {
        id: "sk-recap",
        name: "recap",
        mission: "Summarize what happened recently.",
        disposition: ["concise"],
        retrieval: { tags: [], types: ["observation", "episodic"] },
      },
    ],
  };
}
