import { notFound } from "next/navigation";
import { cancelExperimentAction } from "@/app/actions/experiments";
import { ExperimentView } from "@/components/experiments/experiment-view";
import { decodeSegment } from "@/lib/server/http/page-params";
import { getAppDb } from "@/lib/server/runtime/db";
import { getExperiment, getExperimentComparison } from "@/lib/server/services/experiments";

export const dynamic = "force-dynamic";

export default async function ExperimentPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const db = await getAppDb();
  const experiment = await getExperiment(db, decodeSegment(id));
  if (!experiment) notFound();
  const comparison = experiment.baselineId
    ? await getExperimentComparison(db, experiment.baselineId, experiment.id).catch(() => null)
    : null;
  return <ExperimentView initial={experiment} comparison={comparison} cancel={cancelExperimentAction} />;
}
