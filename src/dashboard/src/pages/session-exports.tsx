import { useWorkspace } from "../lib/me.tsx";

/** Where the session's bundle and HAR are served to a member: the REST routes, with the workspace named (the cookie authenticates). */
export function exportUrl(workspace: string, sessionId: string, what: "bundle" | "har"): string {
  return `/v1/sessions/${encodeURIComponent(sessionId)}/${what}?workspace=${encodeURIComponent(workspace)}`;
}

/**
 * "Download": the session's evidence bundle (zip: the session, its events, its logs, its HAR and
 * its video) and its HAR alone, as plain links, so the browser streams them to disk. While a
 * recorded session runs, its bundle would be refused (its video is not written yet): offered once
 * it has ended.
 */
export function ExportLinks({ sessionId, live, recorded }: { sessionId: string; live: boolean; recorded: boolean }) {
  const ws = useWorkspace();
  const waiting = live && recorded;
  return (
    <>
      {waiting ? (
        <button type="button" className="btn btn-secondary" disabled title="The bundle holds the recording: it can be downloaded once the session has ended.">
          Download bundle
        </button>
      ) : (
        <a className="btn btn-secondary" href={exportUrl(ws.slug, sessionId, "bundle")} download={`${sessionId}.zip`}>
          Download bundle
        </a>
      )}
      <a className="btn btn-ghost" href={exportUrl(ws.slug, sessionId, "har")} download={`${sessionId}.har`}>
        HAR
      </a>
    </>
  );
}
