import { ModelCheckPanel } from "@/components/model/model-check-panel";
import { getPinnedForcedToolChoice, getProviderStatus } from "@/lib/server/runtime/model";
import { checkModelAction } from "../actions/model";

export const dynamic = "force-dynamic";

/** The model new runs use, and what its server can do (the same check as `cli model check`). */
export default function ModelPage() {
  const provider = getProviderStatus();
  const pinned = getPinnedForcedToolChoice();
  return (
    <div className="flex max-w-4xl flex-col gap-4">
      <h1 className="text-lg font-semibold">Model</h1>
      <dl className="grid grid-cols-[max-content_1fr] gap-x-4 gap-y-1 text-[13px]" data-testid="model-settings">
        <dt className="text-slate-600">Model</dt>
        <dd className="font-mono">{provider.kind === "offline" ? "offline (embedded)" : provider.model}</dd>
        <dt className="text-slate-600">Server</dt>
        <dd className="font-mono">
          {provider.kind === "offline" ? "none: runs in this process" : provider.baseUrlHost}
        </dd>
        <dt className="text-slate-600">Forced tool choice</dt>
        <dd className="font-mono">
          {provider.kind === "offline"
            ? "not applicable"
            : pinned
              ? `${pinned} (pinned by REFLECT_FORCED_TOOL_CHOICE)`
              : "named, downgraded automatically when the server rejects it"}
        </dd>
      </dl>
      <ModelCheckPanel check={checkModelAction} />
    </div>
  );
}
