import { useEffect, useRef, useState, type FormEvent } from "react";
import {
  ForceStopSessionDocument, ReleaseSessionDocument, RevokeLiveViewsDocument, SaveSessionAsProfileDocument, SessionDocument, SessionEventsDocument,
  SessionEventsFeedDocument, type SessionEventType,
} from "@gql/graphql.ts";
import { ApiError, asApiError, request } from "../lib/api.ts";
import { formatBytes, formatDateTime, formatDuration, formatTime } from "../lib/format.ts";
import { useMutation, useNow, useQuery, useTitle } from "../lib/hooks.ts";
import { subscribe } from "../lib/live.ts";
import { useWorkspace, wsPath } from "../lib/me.tsx";
import { Link } from "../lib/router.tsx";
import { describeEvent, endReasonText, isLive, shortId, StatusBadge } from "../components/session-bits.tsx";
import { Badge, Button, ConfirmDialog, CopyButton, Dialog, ErrorNotice, Field, Loading, fieldError, useToast } from "../components/ui.tsx";
import { EyeIcon, ExternalIcon, RefreshIcon } from "../components/icons.tsx";

interface TimelineEvent {
  id: string;
  type: SessionEventType;
  createdAt: string;
  data: string;
}

const finalTypes = new Set<SessionEventType>(["SESSION_RELEASED", "SESSION_TIMED_OUT", "SESSION_FAILED"]);

export function SessionPage({ id }: { id: string }) {
  const ws = useWorkspace();
  const toast = useToast();
  const now = useNow(1000);
  const session = useQuery(SessionDocument, { workspace: ws.slug, id });
  const { reload } = session;
  const [events, setEvents] = useState<TimelineEvent[]>([]);
  const [eventsError, setEventsError] = useState<ApiError | undefined>();
  const [feed, setFeed] = useState<"live" | "ended" | "offline">("live");
  const [viewUrl, setViewUrl] = useState<string | null>(null);
  const [opening, setOpening] = useState(false);
  const [openError, setOpenError] = useState<ApiError | undefined>();
  const [confirm, setConfirm] = useState<"release" | "stop" | "revoke" | "save" | null>(null);
  const release = useMutation(ReleaseSessionDocument);
  const stop = useMutation(ForceStopSessionDocument);
  const revoke = useMutation(RevokeLiveViewsDocument);
  useTitle(`Session ${shortId(id)}`);

  // The timeline: everything so far, then each event as it happens, until the session's last one.
  const refresh = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => {
    let trailing: ReturnType<typeof setTimeout> | undefined;
    const add = (incoming: TimelineEvent[]) =>
      setEvents((prev) => {
        const seen = new Set(prev.map((e) => e.id));
        const fresh = incoming.filter((e) => !seen.has(e.id));
        return fresh.length > 0 ? [...prev, ...fresh].sort((a, b) => (a.id < b.id ? -1 : 1)) : prev;
      });
    const stopFeed = subscribe(
      SessionEventsFeedDocument,
      { sessionId: id },
      {
        next: (d) => {
          add([d.sessionEvents]);
          // Status, end and viewer count live on the session: read it again when they may have changed.
          if (!d.sessionEvents.type.startsWith("CDP_")) {
            clearTimeout(refresh.current);
            refresh.current = setTimeout(() => void reload(), 150);
          }
          if (finalTypes.has(d.sessionEvents.type)) setViewUrl(null);
        },
        error: (err) => {
          setFeed("offline");
          setEventsError(err);
          // Without the socket, read the timeline once over HTTP.
          request(SessionEventsDocument, { sessionId: id }).then((d) => add(d.sessionEvents.items), (e: unknown) => setEventsError(asApiError(e)));
        },
        complete: () => {
          setFeed("ended");
          // Viewers and automation are disconnected as the session ends: their events come just after its last one.
          trailing = setTimeout(() => {
            request(SessionEventsDocument, { sessionId: id }).then((d) => add(d.sessionEvents.items), () => {});
          }, 1500);
        },
      },
    );
    return () => {
      stopFeed();
      clearTimeout(refresh.current);
      clearTimeout(trailing);
    };
  }, [id, reload]);

  const s = session.data?.session;

  if (!s) {
    if (session.error) {
      return (
        <>
          <Breadcrumb id={id} />
          <ErrorNotice
            error={session.error.code === "NOT_FOUND" ? Object.assign(session.error, { message: `There is no session ${id} in ${ws.name}.` }) : session.error}
            onRetry={() => void reload()}
          />
        </>
      );
    }
    return <Loading label="Loading the session…" />;
  }

  const live = isLive(s.status);
  const running = s.status === "RUNNING";
  const started = s.startedAt ?? s.createdAt;

  const openLiveView = async () => {
    setOpening(true);
    setOpenError(undefined);
    try {
      // A fresh link: live-view links work for about five minutes.
      const fresh = await request(SessionDocument, { workspace: ws.slug, id });
      if (!fresh.session.liveViewUrl) throw new ApiError("The session is not running any more.", "CONFLICT", 409);
      setViewUrl(fresh.session.liveViewUrl);
    } catch (err) {
      setOpenError(asApiError(err));
    } finally {
      setOpening(false);
    }
  };

  const doRelease = async () => {
    if (await release.run({ workspace: ws.slug, id })) {
      setConfirm(null);
      setViewUrl(null);
      toast("Session released");
      void reload();
    }
  };
  const doStop = async () => {
    if (await stop.run({ id })) {
      setConfirm(null);
      setViewUrl(null);
      toast("Session force-stopped");
      void reload();
    }
  };
  const doRevoke = async () => {
    if (await revoke.run({ id })) {
      setConfirm(null);
      setViewUrl(null);
      toast("Live view links closed");
      void reload();
    }
  };

  return (
    <>
      <Breadcrumb id={id} />
      <header className="page-header">
        <div className="page-header-text">
          <h1 tabIndex={-1} className="page-title session-title">
            <span className="mono">{s.id}</span>
            <StatusBadge status={s.status} />
          </h1>
          <p className="page-description">
            {live ? (
              <>
                Running for {formatDuration(now - Date.parse(started))}; ends by {formatTime(s.expiresAt)} ({formatDuration(Date.parse(s.expiresAt) - now)} left)
                {s.idleTimeoutSeconds ? `, or after ${formatDuration(s.idleTimeoutSeconds * 1000)} idle` : ""}.
              </>
            ) : (
              <>
                Ended {formatDateTime(s.endedAt)}
                {s.endReason ? <> · {endReasonText[s.endReason]}</> : null}
              </>
            )}
          </p>
        </div>
        <div className="page-actions">
          <CopyButton text={s.id} label="Copy id" size="md" />
          {running ? (
            <Button onClick={() => setConfirm("save")}>Save as profile</Button>
          ) : null}
          {live && ws.canAdmin ? (
            <Button variant="danger" onClick={() => setConfirm("stop")}>
              Force stop
            </Button>
          ) : null}
          {live ? (
            <Button variant="primary" onClick={() => setConfirm("release")}>
              Release
            </Button>
          ) : null}
        </div>
      </header>

      <div className="detail-grid">
        <div className="detail-main">
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
                    <Button size="sm" variant="ghost" onClick={() => setConfirm("revoke")}>
                      Revoke all links
                    </Button>
                  ) : null}
                </div>
              </>
            ) : running ? (
              <div className="live-placeholder">
                <EyeIcon width="28" height="28" />
                <p>Watch the browser{s.liveViewInteractive ? " and take over the mouse and keyboard" : ""}. Opening it counts as activity, so the session is not released as idle while you watch.</p>
                <div className="row-gap">
                  <Button variant="primary" onClick={() => void openLiveView()} pending={opening}>
                    Open live view
                  </Button>
                  {ws.canAdmin ? (
                    <Button variant="ghost" onClick={() => setConfirm("revoke")}>
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

          <section className="card" aria-labelledby="tl-title">
            <div className="card-head">
              <h2 id="tl-title" className="card-title">
                Timeline
              </h2>
              <span className="muted small" aria-live="polite">
                {feed === "live" ? "Live" : feed === "ended" ? "Complete" : "Not live"}
              </span>
            </div>
            {eventsError && events.length === 0 ? <ErrorNotice error={eventsError} compact /> : null}
            {events.length === 0 && !eventsError ? <p className="muted pad">Waiting for events…</p> : null}
            <ol className="timeline" aria-label="Session events, oldest first">
              {events.map((e) => {
                const data = safeJson(e.data);
                const d = describeEvent(e.type, data);
                return (
                  <li key={e.id} className={`timeline-item tone-${d.tone}`} data-event-type={e.type}>
                    <span className="timeline-dot" aria-hidden="true" />
                    <div className="timeline-body">
                      <div className="timeline-line">
                        <span className="timeline-title">{d.title}</span>
                        <time className="muted small tabular" dateTime={e.createdAt} title={formatDateTime(e.createdAt)}>
                          {formatTime(e.createdAt)}
                        </time>
                      </div>
                      {d.detail ? <p className="timeline-detail">{d.detail}</p> : null}
                      {Object.keys(data).length > 0 ? (
                        <details className="timeline-data">
                          <summary>Details</summary>
                          <pre>{JSON.stringify(data, null, 2)}</pre>
                        </details>
                      ) : null}
                    </div>
                  </li>
                );
              })}
            </ol>
          </section>
        </div>

        <aside className="detail-side">
          <section className="card" aria-labelledby="sum-title">
            <h2 id="sum-title" className="card-title">
              Details
            </h2>
            <dl className="props">
              <div>
                <dt>Status</dt>
                <dd>
                  <StatusBadge status={s.status} />
                </dd>
              </div>
              {s.endReason ? (
                <div>
                  <dt>End reason</dt>
                  <dd>{endReasonText[s.endReason]}</dd>
                </div>
              ) : null}
              <div>
                <dt>Region</dt>
                <dd>{s.region}</dd>
              </div>
              <div>
                <dt>Created</dt>
                <dd>{formatDateTime(s.createdAt)}</dd>
              </div>
              <div>
                <dt>Started</dt>
                <dd>{formatDateTime(s.startedAt)}</dd>
              </div>
              {live ? (
                <div>
                  <dt>Ends by</dt>
                  <dd>{formatDateTime(s.expiresAt)}</dd>
                </div>
              ) : (
                <div>
                  <dt>Ended</dt>
                  <dd>{formatDateTime(s.endedAt)}</dd>
                </div>
              )}
              <div>
                <dt>Time limit</dt>
                <dd>{formatDuration(s.timeoutSeconds * 1000)}</dd>
              </div>
              <div>
                <dt>Idle timeout</dt>
                <dd>{s.idleTimeoutSeconds ? formatDuration(s.idleTimeoutSeconds * 1000) : "—"}</dd>
              </div>
              <div>
                <dt>Profile</dt>
                <dd>{s.profileId ? <Link to={wsPath(ws.slug, "profiles")} className="mono">{s.profileId}</Link> : "None"}</dd>
              </div>
            </dl>
          </section>

          <DownloadsCard sessionId={s.id} events={events} running={running} />

          {running && s.connectUrl ? (
            <section className="card" aria-labelledby="connect-title">
              <h2 id="connect-title" className="card-title">
                Connect your code
              </h2>
              <p className="muted small">
                Any CDP client works. The address carries a token valid until the session ends: treat it like a password.
              </p>
              <div className="secret-row">
                <input className="mono" readOnly value={s.connectUrl} aria-label="CDP connect address" onFocus={(e) => e.currentTarget.select()} />
                <CopyButton text={s.connectUrl} />
              </div>
              <pre className="code-block small">
                <code>{`const browser = await chromium.connectOverCDP(connectUrl);`}</code>
              </pre>
            </section>
          ) : null}
        </aside>
      </div>

      <ConfirmDialog
        open={confirm === "release"}
        onClose={() => setConfirm(null)}
        onConfirm={() => void doRelease()}
        title="Release this session?"
        confirmLabel="Release session"
        pending={release.pending}
        error={release.error}
      >
        <p>
          The browser closes and everything connected to it is disconnected.
          {s.profileId ? " If the session was started to save into its profile, the profile is saved first." : ""}
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        open={confirm === "stop"}
        onClose={() => setConfirm(null)}
        onConfirm={() => void doStop()}
        title="Force-stop this session?"
        confirmLabel="Force stop"
        pending={stop.pending}
        error={stop.error}
      >
        <p>
          An admin stop: the browser is closed at once, nothing is saved into its profile, and the session ends with the reason “force-stopped by an
          admin”. Its automation sees the connection drop.
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        open={confirm === "revoke"}
        onClose={() => setConfirm(null)}
        onConfirm={() => void doRevoke()}
        title="Revoke all live view links?"
        confirmLabel="Revoke links"
        pending={revoke.pending}
        error={revoke.error}
      >
        <p>Every live view link handed out so far stops working and open viewers are disconnected. The session keeps running; a new link can be opened here.</p>
      </ConfirmDialog>
      <SaveProfileDialog open={confirm === "save"} onClose={() => setConfirm(null)} sessionId={s.id} />
    </>
  );
}

function Breadcrumb({ id }: { id: string }) {
  const ws = useWorkspace();
  return (
    <nav className="breadcrumb" aria-label="Breadcrumb">
      <Link to={wsPath(ws.slug, "sessions")}>Sessions</Link>
      <span aria-hidden="true">/</span>
      <span aria-current="page" className="mono">
        {shortId(id)}
      </span>
    </nav>
  );
}

function SaveProfileDialog({ open, onClose, sessionId }: { open: boolean; onClose: () => void; sessionId: string }) {
  const ws = useWorkspace();
  const toast = useToast();
  const [label, setLabel] = useState("");
  const save = useMutation(SaveSessionAsProfileDocument);
  useEffect(() => {
    if (open) {
      setLabel("");
      save.reset();
    }
  }, [open]);
  const submit = async (_e: FormEvent) => {
    const done = await save.run({ workspace: ws.slug, sessionId, label: label.trim() });
    if (done) {
      toast(`Profile “${done.createProfile.label}” saved`);
      onClose();
    }
  };
  return (
    <Dialog
      open={open}
      onClose={onClose}
      title="Save as profile"
      description="Saves this browser’s cookies, localStorage and sessionStorage, encrypted. Later sessions can start from it, already logged in."
      onSubmit={submit}
      footer={
        <>
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant="primary" pending={save.pending} disabled={!label.trim()}>
            Save profile
          </Button>
        </>
      }
    >
      <Field id="sp-label" label="Profile name" error={fieldError(save.error, "label")}>
        <input id="sp-label" autoFocus value={label} maxLength={100} onChange={(e) => setLabel(e.target.value)} placeholder="Supplier portal login" />
      </Field>
      {save.error ? <ErrorNotice error={save.error} compact /> : null}
    </Dialog>
  );
}

interface DownloadRow {
  id: string;
  name: string;
  state: "in progress" | "finished" | "cancelled" | "refused";
  bytes: number | undefined;
  reason: string | undefined;
}

const downloadStates: Partial<Record<SessionEventType, DownloadRow["state"]>> = {
  DOWNLOAD_STARTED: "in progress",
  DOWNLOAD_COMPLETED: "finished",
  DOWNLOAD_CANCELED: "cancelled",
  DOWNLOAD_REFUSED: "refused",
};

/** The session's downloads as its events tell them, oldest first (the same reading as GET …/downloads). */
function downloadsOf(events: TimelineEvent[]): DownloadRow[] {
  const rows = new Map<string, DownloadRow>();
  for (const e of events) {
    const state = downloadStates[e.type];
    if (!state) continue;
    const data = safeJson(e.data);
    if (typeof data.download_id !== "string") continue;
    const row = rows.get(data.download_id) ?? { id: data.download_id, name: "", state, bytes: undefined, reason: undefined };
    row.state = state;
    if (typeof data.name === "string") row.name = data.name;
    if (typeof data.bytes === "number" && state !== "in progress") row.bytes = data.bytes;
    if (typeof data.reason === "string") row.reason = data.reason;
    rows.set(row.id, row);
  }
  return [...rows.values()];
}

/** Files the session's pages downloaded; finished ones can be fetched while the session runs (they go with its browser). */
function DownloadsCard({ sessionId, events, running }: { sessionId: string; events: TimelineEvent[]; running: boolean }) {
  const downloads = downloadsOf(events);
  if (downloads.length === 0) return null;
  return (
    <section className="card" aria-labelledby="dl-title">
      <h2 id="dl-title" className="card-title">
        Downloads
      </h2>
      <ul className="downloads" aria-label="Files the session downloaded">
        {downloads.map((d) => (
          <li key={d.id} data-download-state={d.state}>
            <div className="download-line">
              <span className="download-name" title={d.name}>{d.name || "(no name)"}</span>
              {d.state === "finished" && running ? (
                <a className="btn btn-secondary btn-sm" href={`/api/v1/sessions/${sessionId}/downloads/${d.id}`} download={d.name || true}>
                  Save
                </a>
              ) : (
                <span className="muted small">{d.state === "finished" ? "deleted with the browser" : d.state}</span>
              )}
            </div>
            {d.bytes !== undefined || d.reason ? (
              <p className="muted small">{[d.bytes !== undefined ? formatBytes(d.bytes) : undefined, d.reason].filter(Boolean).join(" · ")}</p>
            ) : null}
          </li>
        ))}
      </ul>
      {running ? <p className="muted small">Files are deleted when the session ends.</p> : null}
    </section>
  );
}

function safeJson(text: string): Record<string, unknown> {
  try {
    const v = JSON.parse(text) as unknown;
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
