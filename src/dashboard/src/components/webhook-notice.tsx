import { WebhooksDocument } from "@gql/graphql.ts";
import { useQuery } from "../lib/hooks.ts";
import { wsPath, type CurrentWorkspace } from "../lib/me.tsx";
import { Link, useLocation } from "../lib/router.tsx";
import { plural } from "../lib/format.ts";
import { Notice } from "./ui.tsx";

/**
 * On every page of a workspace, for its owners and admins: webhooks Vessel disabled after 3 days of
 * failed deliveries, so nobody has to visit the Webhooks page to learn that events stopped. The
 * Webhooks page itself says it in detail, with the button that turns each back on.
 */
export function DisabledWebhooksNotice({ workspace }: { workspace: CurrentWorkspace }) {
  const { path } = useLocation();
  const here = wsPath(workspace.slug, "webhooks");
  const list = useQuery(WebhooksDocument, { workspace: workspace.slug }, { skip: !workspace.canAdmin || path === here });
  if (!workspace.canAdmin || path === here) return null;
  const disabled = (list.data?.webhooks.items ?? []).filter((w) => !w.enabled && w.disabledReason && w.disabledReason !== "turned off");
  if (disabled.length === 0) return null;
  return (
    <div className="webhook-banner">
      <Notice tone="warning" title={`${plural(disabled.length, "webhook")} disabled`}>
        <p>
          Vessel stopped sending events to {disabled.length === 1 ? <span className="mono">{disabled[0]!.url}</span> : "them"}: every delivery failed for 3
          days. <Link to={here}>Review webhooks</Link>
        </p>
      </Notice>
    </div>
  );
}
