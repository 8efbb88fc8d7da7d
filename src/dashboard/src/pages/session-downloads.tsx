import { type SessionEventType } from "@gql/graphql.ts";
import { formatBytes } from "../lib/format.ts";
import { type TimelineEvent, safeJson } from "./session-timeline.ts";

export interface DownloadRow {
  id: string;
  name: string;
  state: "in progress" | "finished" | "cancelled" | "refused";
  bytes: number | undefined;
  reason: string | undefined;
}

export const downloadStates: Partial<Record<SessionEventType, DownloadRow["state"]>> = {
  DOWNLOAD_STARTED: "in progress",
  DOWNLOAD_COMPLETED: "finished",
  DOWNLOAD_CANCELED: "cancelled",
  DOWNLOAD_REFUSED: "refused",
};

/** The session's downloads as its events tell them, oldest first (the same reading as GET …/downloads). */
export function downloadsOf(events: TimelineEvent[]): DownloadRow[] {
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
export function DownloadsCard({ sessionId, events, running }: { sessionId: string; events: TimelineEvent[]; running: boolean }) {
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
              <span className="download-name" title={d.name}>
                {d.name || "(no name)"}
              </span>
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
