import type { Metadata } from "next";
import { headers } from "next/headers";
import { notFound } from "next/navigation";
import { acceptRefreshAction, discardRefreshAction } from "@/app/actions/curation";
import { addToSuiteAction, startExperimentAction } from "@/app/actions/experiments";
import { forkAction, rerunAction, saveRerunChangesAction } from "@/app/actions/rerun";
import { ExperimentVerdict } from "@/components/experiments/experiment-verdict";
import { JudgeLinks } from "@/components/runs/judge-links";
import { RefreshRunNotice } from "@/components/runs/refresh-run-notice";
import { RunActions } from "@/components/runs/run-actions";
import { RunView } from "@/components/runs/run-view";
import { AddToSuite } from "@/components/suites/add-to-suite";
import { getAppDb } from "@/lib/server/runtime/db";
import { isWarmUpRequest, WARM_UP_HEADER } from "@/lib/server/runtime/warm-up";
import { experimentRowOfRun } from "@/lib/server/services/experiments";
import { judgeLinksOf } from "@/lib/server/services/judge";
import { getRefreshOfRun } from "@/lib/server/services/refresh";
import { getReplayDivergence, getRerunContext } from "@/lib/server/services/rerun";
import { FIRST_PAINT_EVENTS, getRunWithEvents, runTitle } from "@/lib/server/services/runs";
import { addToSuiteContext } from "@/lib/server/services/suites";

export const dynamic = "force-dynamic";

/** One note per replayed iteration that drifted, naming everything that differs in it. */
function replayNotesOf(divergence: Awaited<ReturnType<typeof getReplayDivergence>>) {
  const byIteration = new Map<number, string[]>();
  for (const d of divergence) {
    const notes = byIteration.get(d.iteration) ?? [];
    notes.push(`${d.where}: parent ${d.parent} → fork ${d.fork}`);
    byIteration.set(d.iteration, notes);
  }
  return [...byIteration].map(([iteration, notes]) => ({ iteration, text: notes.join("; ") }));
}

/** The tab names the run by its question, cut short: a 3,400-character question is no title. */
export async function generateMetadata({ params }: { params: Promise<{ id: string }> }): Promise<Metadata> {
  const { id } = await params;
  const title = await runTitle(await getAppDb(), id);
  return { title: title ? `${title} · Run · Reflect Inspector` : "Run not found · Reflect Inspector" };
}

export default async function RunPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const db = await getAppDb();
  const [found, context, divergence, suiteContext, refresh, judge, verdict] = await Promise.all([
    getRunWithEvents(db, id, { limit: FIRST_PAINT_EVENTS }),
    getRerunContext(db, id),
    getReplayDivergence(db, id),
    addToSuiteContext(db, id),
    getRefreshOfRun(db, id),
    judgeLinksOf(db, id),
    experimentRowOfRun(db, id),
  ]);
  if (!found) {
    // The server's warm-up before any run exists: an empty run view loads the page's code.
    if (isWarmUpRequest((await headers()).get(WARM_UP_HEADER))) return <RunView runId={id} initialEvents={[]} />;
    notFound();
  }
  return (
    <div className="flex flex-col gap-2">
      {refresh && (
        <RefreshRunNotice
          runId={found.run.id}
          refresh={refresh}
          accept={acceptRefreshAction}
          discard={discardRefreshAction}
        />
      )}
      {verdict && <ExperimentVerdict {...verdict} />}
      <JudgeLinks {...judge} />
      {context && !judge.judgeOf && (
        <RunActions
          data={context}
          iterations={context.run.iterations}
          finished={context.run.status !== "running"}
          parentRunId={context.run.parentRunId}
          rerun={rerunAction}
          saveChanges={saveRerunChangesAction}
          fork={forkAction}
          addToSuite={suiteContext && <AddToSuite {...suiteContext} add={addToSuiteAction} />}
          suiteRun={
            suiteContext ? { suites: suiteContext.suites.map((s) => s.name), start: startExperimentAction } : undefined
          }
        />
      )}
      <RunView
        runId={found.run.id}
        initialEvents={found.events}
        totalEvents={found.total}
        storedStatus={found.run.status}
        replayNotes={replayNotesOf(divergence)}
      />
    </div>
  );
}
