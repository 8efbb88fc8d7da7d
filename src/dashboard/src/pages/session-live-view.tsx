import { useState } from "react";
import { SessionDocument, type SessionFieldsFragment } from "@gql/graphql.ts";
import { ApiError, asApiError, request } from "../lib/api.ts";
import { useWorkspace } from "../lib/me.tsx";
import { isLive } from "../components/session-bits.tsx";
import { Badge, Button, ErrorNotice } from "../components/ui.tsx";
import { EyeIcon, ExternalIcon, RefreshIcon } from "../components/icons.tsx";

/**
 * The session's live view: a button that fetches a fresh link, then the viewer in a frame. The page
 * owns the link (`viewUrl`), because releasing, stopping or revoking from the page closes it.
 */
export function LiveViewCard({
  session: s,
  viewUrl,
  setViewUrl,
  onRevoke,
}: {
  session: SessionFieldsFragment;
  viewUrl: string | null;
  setViewUrl: (url: string | null) => void;
  onRevoke: () => void;
}) {
  const ws = useWorkspace();
  const [opening, setOpening] = useState(false);
  const [openError, setOpenError] = useState<ApiError | undefined>();
  const live = isLive(s.status);
  const running = s.status === "RUNNING";

  const openLiveView = async () => {
    setOpening(true);
    setOpenError(undefined);
    try {
      // A fresh link: live-view links work for about five minutes.
      const fresh = await request(SessionDocument, { workspace: ws.slug, id: s.id });
      if (!fresh.session.liveViewUrl) throw new ApiError("The session is not running any more.", "CONFLICT", 409);
      setViewUrl(fresh.session.liveViewUrl);
    } catch (err) {
      setOpenError(asApiError(err));
    } finally {
      setOpening(false);
    }
  };

  return (
    <section className="card" aria-labelledby="lv-title">
      <div className="card-head">
        <h2 id="lv-title" className="card-title">
          Live view
        </h2>
        <div className="card-actions">
          <Badge tone={s.liveViewInteractive ? "blue" : "neutral"}>{s.liveViewInteractive ? "Interactive" : "View only"}</Badge>
          {s.liveViewViewers > 0 ? <Badge tone="violet">{s.liveViewViewers} watching</Badge> : null}
        </div>
      </div>
      {s.liveViewInstructions ? (
        <p className="instructions">
          <span className="muted">Instructions shown to the viewer:</span> {s.liveViewInstructions}
        </p>
      ) : null}
      {running && viewUrl ? (
        <>
          <div className="live-frame">
            <iframe src={viewUrl} title={`Live view of session ${s.id}`} referrerPolicy="no-referrer" />
          </div>
          <div className="card-foot">
            <Button size="sm" onClick={() => void openLiveView()} pending={opening}>
              <RefreshIcon /> Reconnect
            </Button>
            <a className="btn btn-secondary btn-sm" href={viewUrl} target="_blank" rel="noopener noreferrer">
              <ExternalIcon /> Open in a new tab
            </a>
            <Button size="sm" variant="ghost" onClick={() => setViewUrl(null)}>
              Close
            </Button>
            {ws.canAdmin ? (
              <Button size="sm" variant="ghost" onClick={onRevoke}>
                Revoke all links
              </Button>
            ) : null}
          </div>
        </>
      ) : running ? (
        <div className="live-placeholder">
          <EyeIcon width="28" height="28" />
          <p>
            Watch the browser{s.liveViewInteractive ? " and take over the mouse and keyboard" : ""}. Opening it counts as activity, so the session is not
            released as idle while you watch.
          </p>
          <div className="row-gap">
            <Button variant="primary" onClick={() => void openLiveView()} pending={opening}>
              Open live view
            </Button>
            {ws.canAdmin ? (
              <Button variant="ghost" onClick={onRevoke}>
                Revoke all links
              </Button>
            ) : null}
          </div>
          {openError ? <ErrorNotice error={openError} compact /> : null}
        </div>
      ) : (
        <div className="live-placeholder ended">
          <p>{live ? "The session is starting or ending…" : "The session has ended, and its browser is closed."}</p>
        </div>
      )}
    </section>
  );
}
