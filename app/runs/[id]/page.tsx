import { notFound } from "next/navigation";
import { RunView } from "@/components/runs/run-view";
import { getAppDb } from "@/lib/server/db";
import { getRunWithEvents } from "@/lib/server/runs";

export const dynamic = "force-dynamic";

export default async function RunPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const found = await getRunWithEvents(await getAppDb(), id);
  if (!found) notFound();
  return <RunView runId={found.run.id} initialEvents={found.events} />;
}
