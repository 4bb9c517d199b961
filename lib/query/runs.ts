/** View models the run pages share between server (lib/server) and client (components). */
export interface RunListItem {
  id: string;
  bankId: string;
  question: string;
  answer: string | null;
  skillName: string;
  skillVersion: number;
  budget: string;
  mode: string;
  scope: string;
  modelName: string;
  status: string;
  flags: string[];
  llmCalls: number;
  inputTokens: number;
  outputTokens: number;
  durationMs: number | null;
  createdAt: string;
  parentRunId: string | null;
}

export interface RunListPage {
  runs: RunListItem[];
  nextCursor: string | null;
}

export interface BankOption {
  id: string;
  name: string;
  permittedTeams: string[];
  skills: { id: string; name: string; version: number; budget: string; scope: string }[];
}
