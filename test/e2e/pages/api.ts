/** Starting runs the way an API client does, for tests that need a run but not the form. */
export interface ApiRun {
  question: string;
  skill?: string;
  budget?: "low" | "mid" | "high";
  /** true: answers once the run has finished. */
  wait?: boolean;
}

export async function startRunViaApi(appUrl: string, run: ApiRun, bank = "demo"): Promise<string> {
  const res = await fetch(`${appUrl}/api/v1/banks/${bank}/reflect`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(run),
  });
  const body = (await res.json()) as { runId?: string; id?: string; error?: unknown };
  const id = body.runId ?? body.id;
  if (!res.ok || !id) throw new Error(`reflect answered ${res.status}: ${JSON.stringify(body)}`);
  return id;
}
