import { useCallback, useEffect, useMemo, useRef, useState, type KeyboardEvent } from "react";
import { SessionRecordingDocument, type SessionFieldsFragment } from "@gql/graphql.ts";
import { useNow, useQuery } from "../lib/hooks.ts";
import { useWorkspace } from "../lib/me.tsx";
import { isLive, shortId } from "../components/session-bits.tsx";
import { ErrorNotice } from "../components/ui.tsx";
import { useSessionLogs } from "./inspector-feed.ts";
import { eventItem, filters, logItem, shown, type Filter, type Item } from "./inspector-model.ts";
import { InspectorTimeline } from "./inspector-timeline.tsx";
import { NetworkTable } from "./network-table.tsx";
import { Player, recordingUrl } from "./player.tsx";
import { DeleteRecordingButton } from "./recording-delete.tsx";
import { LogList } from "./session-logs.tsx";
import type { TimelineEvent } from "./session-timeline.ts";

/** CDP methods are every command automation sent: off at first, or they drown the rest. */
const firstFilters: Filter[] = ["console", "errors", "network", "navigation", "events"];
/** While a recording is being processed, where it stands is read again this often. */
const PROCESSING_POLL_MS = 3_000;

/** The recording's state from the server, read again until it is ready (or failed, or gone). */
function useRecordingInfo(workspace: string, session: SessionFieldsFragment) {
  const live = isLive(session.status);
  const q = useQuery(SessionRecordingDocument, { workspace, id: session.id }, { skip: !session.recording });
  const info = q.data?.session.recordingInfo ?? null;
  const settling = !live && (info?.status === "RECORDING" || info?.status === "PROCESSING");
  const { reload, set } = q;
  // The session's end changes where the recording stands: read it again then.
  useEffect(() => {
    if (session.recording && !live) void reload();
  }, [session.recording, live, reload]);
  useEffect(() => {
    if (!settling) return;
    const timer = setInterval(() => void reload(), PROCESSING_POLL_MS);
    return () => clearInterval(timer);
  }, [settling, reload]);
  // Once it is known to be gone, the page (and the cache it is seen again from) holds no recording.
  const forget = useCallback(() => set((prev) => prev && { session: { ...prev.session, recordingInfo: null } }), [set]);
  return { info, loaded: q.data !== undefined, error: q.error, forget };
}

/**
 * The session inspector: the recording (once the session has ended), a timeline of the session's
 * events and logs along its time axis under it, filters by kind, and the log as a list or the network
 * requests as a table. Picking an entry, on the timeline or in a list, seeks the video to it; the
 * playhead follows the video. While the session runs, the logs arrive live.
 */
export function SessionInspector({ session: s, events }: { session: SessionFieldsFragment; events: TimelineEvent[] }) {
  const ws = useWorkspace();
  const live = isLive(s.status);
  const now = useNow(live ? 1000 : 60_000);
  const logs = useSessionLogs(ws.slug, s.id, { enabled: s.logs, running: live });
  const recording = useRecordingInfo(ws.slug, s);
  const video = useRef<HTMLVideoElement | null>(null);
  const [seconds, setSeconds] = useState<number | null>(null);
  const [on, setOn] = useState<ReadonlySet<Filter>>(() => new Set(firstFilters));
  const [tab, setTab] = useState<"log" | "network">("log");
  const [selected, setSelected] = useState<string | undefined>();
  const [deleted, setDeleted] = useState(false);
  const deletedNote = useRef<HTMLParagraphElement | null>(null);
  // The button that opened the dialog is gone with the recording: focus goes to what says so.
  useEffect(() => {
    if (deleted) deletedNote.current?.focus();
  }, [deleted]);

  const items = useMemo(() => [...logs.entries.map(logItem), ...events.map(eventItem)].sort((a, b) => a.at - b.at), [logs.entries, events]);
  const visible = useMemo(() => items.filter((i) => shown(i, on)), [items, on]);
  const requests = useMemo(() => visible.filter((i) => i.kind === "network"), [visible]);
  const counts = useMemo(() => new Map(filters.map((f) => [f.id, items.filter((i) => i.filters.includes(f.id)).length])), [items]);

  const info = recording.info;
  const playable = info?.status === "READY" && !live && info.startedAt ? Date.parse(info.startedAt) : undefined;
  const start = Math.min(Date.parse(s.startedAt ?? s.createdAt), playable ?? Infinity);
  const end = Math.max(s.endedAt ? Date.parse(s.endedAt) : now, start + 1000, info?.endedAt ? Date.parse(info.endedAt) : 0);
  const playhead = playable !== undefined && seconds !== null ? playable + seconds * 1000 : null;

  const seek = useCallback(
    (at: number) => {
      const v = video.current;
      if (!v || playable === undefined) return;
      const target = Math.max(0, (at - playable) / 1000);
      v.currentTime = Number.isFinite(v.duration) ? Math.min(target, v.duration) : target;
      setSeconds(v.currentTime);
    },
    [playable],
  );
  // Stable, so the lists (memoised) are not drawn again on every frame the playhead moves.
  const pick = useCallback(
    (item: Item) => {
      setSelected((prev) => (prev === item.key ? undefined : item.key));
      seek(item.at);
    },
    [seek],
  );
  // From the timeline, an entry the network table does not hold is shown in the log.
  const pickOnTimeline = useCallback(
    (item: Item) => {
      if (item.kind !== "network") setTab("log");
      pick(item);
    },
    [pick],
  );
  const toggle = (f: Filter) =>
    setOn((prev) => {
      const next = new Set(prev);
      if (!next.delete(f)) next.add(f);
      return next;
    });

  const { forget } = recording;
  const gone = useCallback(
    (how: "deleted" | "missing") => {
      setSeconds(null);
      setDeleted(how === "deleted");
      forget();
    },
    [forget],
  );

  const title = s.recording && s.logs ? "Recording and logs" : s.recording ? "Recording" : "Logs";
  return (
    <section className="card inspector" aria-labelledby="inspector-title">
      <div className="card-head">
        <h2 id="inspector-title" className="card-title">
          {title}
        </h2>
        <div className="card-actions">
          {s.logs ? (
            <span className="muted small" aria-live="polite">
              {logs.state === "loading"
                ? "Loading…"
                : logs.state === "live"
                  ? "Live"
                  : logs.state === "complete"
                    ? `${logs.entries.length.toLocaleString()} log ${logs.entries.length === 1 ? "entry" : "entries"}`
                    : "Not live"}
            </span>
          ) : null}
          {info && !deleted ? <DeleteRecordingButton sessionId={s.id} onGone={gone} /> : null}
        </div>
      </div>

      {deleted ? (
        <p ref={deletedNote} className="muted small pad" role="status" tabIndex={-1}>
          The recording was deleted.
        </p>
      ) : s.recording && recording.loaded ? (
        <Player
          src={recordingUrl(ws.slug, s.id)}
          info={info}
          live={live}
          label={`Recording of session ${shortId(s.id)}`}
          videoRef={video}
          onTime={setSeconds}
        />
      ) : null}
      {recording.error ? <ErrorNotice error={recording.error} compact /> : null}

      <InspectorTimeline
        items={visible}
        start={start}
        end={end}
        playhead={playhead}
        selected={selected}
        onPick={pickOnTimeline}
        onSeek={playable !== undefined ? seek : undefined}
      />

      <div className="inspector-filters" role="group" aria-label="Show on the timeline and in the lists">
        {filters.map((f) => (
          <button key={f.id} type="button" className={`chip chip-${f.id}`} aria-pressed={on.has(f.id)} onClick={() => toggle(f.id)}>
            <span className="chip-dot" aria-hidden="true" />
            {f.label}
            <span className="chip-count tabular">{(counts.get(f.id) ?? 0).toLocaleString()}</span>
          </button>
        ))}
      </div>

      {!s.logs ? <p className="muted small pad">This session was started without logs: only its events are shown.</p> : null}
      {logs.error && logs.entries.length === 0 ? <ErrorNotice error={logs.error} compact /> : null}

      <div className="segmented inspector-tabs" role="tablist" aria-label="View" onKeyDown={(e) => switchTab(e, setTab)}>
        {(["log", "network"] as const).map((t) => (
          <button
            key={t}
            type="button"
            role="tab"
            id={`inspector-tab-${t}`}
            aria-selected={tab === t}
            tabIndex={tab === t ? 0 : -1}
            aria-controls="inspector-panel"
            className={`segment${tab === t ? " active" : ""}`}
            onClick={() => setTab(t)}
          >
            {t === "log" ? "Log" : "Network"}
            <span className="segment-count tabular">{(t === "log" ? visible.length : requests.length).toLocaleString()}</span>
          </button>
        ))}
      </div>
      <div id="inspector-panel" role="tabpanel" aria-labelledby={`inspector-tab-${tab}`}>
        {tab === "log" ? (
          <LogList items={visible} start={start} selected={selected} onPick={pick} />
        ) : (
          <NetworkTable items={requests} start={start} selected={selected} onPick={pick} />
        )}
      </div>
    </section>
  );
}

/** Left and right arrows move between the two tabs (one tab stop for the list, as tabs are read). */
function switchTab(e: KeyboardEvent<HTMLDivElement>, setTab: (t: "log" | "network") => void) {
  if (e.key !== "ArrowLeft" && e.key !== "ArrowRight") return;
  const next = (e.target as HTMLElement).id === "inspector-tab-log" ? "network" : "log";
  setTab(next);
  document.getElementById(`inspector-tab-${next}`)?.focus();
}
