import { useEffect, useRef, useState } from "react";
import {
  ForceStopSessionDocument,
  ReleaseSessionDocument,
  RevokeLiveViewsDocument,
  SessionDocument,
  SessionEventsDocument,
  SessionEventsFeedDocument,
} from "@gql/graphql.ts";
import { type ApiError, asApiError, request } from "../lib/api.ts";
import { formatDateTime, formatDuration, formatTime } from "../lib/format.ts";
import { useMutation, useNow, useQuery, useTitle } from "../lib/hooks.ts";
import { subscribe } from "../lib/live.ts";
import { useWorkspace } from "../lib/me.tsx";
import { endReasonText, isLive, shortId, StatusBadge } from "../components/session-bits.tsx";
import { Button, CopyButton, ErrorNotice, Loading } from "../components/ui.tsx";
import { useToast } from "../components/toasts.tsx";
import { ConfirmDialog } from "../components/dialogs.tsx";
import { DownloadsCard } from "./session-downloads.tsx";
import { FilesCard } from "./session-files.tsx";
import { SessionInspector } from "./session-inspector.tsx";
import { ExportLinks } from "./session-exports.tsx";
import { LiveViewCard } from "./session-live-view.tsx";
import { SaveProfileDialog } from "./SaveProfileDialog.tsx";
import { type TimelineEvent, finalTypes } from "./session-timeline.ts";
import { Breadcrumb, ConnectCard, SessionDetails, SessionTimeline } from "./session-cards.tsx";

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
          request(SessionEventsDocument, { sessionId: id }).then(
            (d) => add(d.sessionEvents.items),
            (e: unknown) => setEventsError(asApiError(e)),
          );
        },
        complete: () => {
          setFeed("ended");
          // Viewers and automation are disconnected as the session ends: their events come just after its last one.
          trailing = setTimeout(() => {
            request(SessionEventsDocument, { sessionId: id }).then(
              (d) => add(d.sessionEvents.items),
              () => {},
            );
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
                Running for {formatDuration(now - Date.parse(started))}; ends by {formatTime(s.expiresAt)} ({formatDuration(Date.parse(s.expiresAt) - now)}{" "}
                left)
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
          <ExportLinks sessionId={s.id} live={live} recorded={s.recording} />
          {running ? <Button onClick={() => setConfirm("save")}>Save as profile</Button> : null}
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
          {live || !s.recording ? <LiveViewCard session={s} viewUrl={viewUrl} setViewUrl={setViewUrl} onRevoke={() => setConfirm("revoke")} /> : null}

          {s.logs || s.recording ? <SessionInspector session={s} events={events} /> : null}

          <SessionTimeline events={events} error={eventsError} feed={feed} />
        </div>

        <aside className="detail-side">
          <SessionDetails session={s} live={live} />

          <FilesCard sessionId={s.id} running={running} uploads={events.filter((e) => e.type === "FILE_UPLOADED").length} />

          <DownloadsCard sessionId={s.id} events={events} running={running} />

          {running && s.connectUrl ? <ConnectCard connectUrl={s.connectUrl} /> : null}
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
          An admin stop: the browser is closed at once, nothing is saved into its profile, and the session ends with the reason “force-stopped by an admin”. Its
          automation sees the connection drop.
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
