import { useEffect, useRef, useState } from "react";
import { SessionFilesDocument, type SessionFileFieldsFragment } from "@gql/graphql.ts";
import { asApiError, type ApiError } from "../lib/api.ts";
import { formatBytes, formatDateTime, formatTime } from "../lib/format.ts";
import { useQuery } from "../lib/hooks.ts";
import { useWorkspace } from "../lib/me.tsx";
import { postFile } from "../lib/rest.ts";
import { Button, CopyButton, ErrorNotice } from "../components/ui.tsx";
import { useToast } from "../components/toasts.tsx";
import { UploadIcon } from "../components/icons.tsx";

type SessionFile = SessionFileFieldsFragment;

/** REST's answer to an upload (snake_case), as the GraphQL list holds it. */
interface UploadedFile {
  id: string;
  name: string;
  size: number;
  sha256: string;
  path: string;
  uploaded_at: string;
  available: boolean;
}

/**
 * Where a file goes: the REST route, streamed as multipart. Dashboard users may call it with their
 * cookie (it takes API keys or users), so files are not limited by the GraphQL body as base64 would be.
 * `workspace` is ignored there (a member of the session's workspace may upload), but names the
 * workspace in the address as the dashboard's other REST calls do.
 */
export function sessionFilesUrl(workspace: string, sessionId: string): string {
  return `/v1/sessions/${encodeURIComponent(sessionId)}/files?workspace=${encodeURIComponent(workspace)}`;
}

/**
 * Files put into the session for its pages' file inputs: upload while it runs, then give a file's
 * path to the automation (Puppeteer's uploadFile; Playwright takes a buffer instead). They go with the session.
 */
export function FilesCard({
  sessionId,
  running,
  uploads,
}: {
  sessionId: string;
  running: boolean;
  /** How many file.uploaded events the session's timeline holds: uploads by its automation arrive that way. */
  uploads: number;
}) {
  const ws = useWorkspace();
  const toast = useToast();
  const files = useQuery(SessionFilesDocument, { sessionId });
  const { reload, set } = files;
  const picker = useRef<HTMLInputElement>(null);
  const [uploading, setUploading] = useState<string | undefined>();
  const [error, setError] = useState<ApiError | undefined>();

  // When the session ends its files are deleted with its browser, and a file uploaded elsewhere (the
  // API, the CLI) is an event on the timeline: read the list again for either.
  const seen = useRef({ running, uploads });
  useEffect(() => {
    if ((seen.current.running && !running) || uploads > seen.current.uploads) void reload();
    seen.current = { running, uploads };
  }, [running, uploads, reload]);

  const upload = async (file: File) => {
    setUploading(file.name);
    setError(undefined);
    try {
      const made = await postFile<UploadedFile>(sessionFilesUrl(ws.slug, sessionId), "file", file);
      const row: SessionFile = {
        id: made.id,
        name: made.name,
        size: made.size,
        sha256: made.sha256,
        path: made.path,
        uploadedAt: made.uploaded_at,
        available: made.available,
      };
      set((prev) => ({ sessionFiles: [...(prev?.sessionFiles ?? []).filter((f) => f.id !== row.id), row] }));
      toast(`Uploaded ${made.name}`);
    } catch (err) {
      setError(asApiError(err));
    } finally {
      setUploading(undefined);
    }
  };

  const list = files.data?.sessionFiles ?? [];
  if (!running && list.length === 0) return null;
  return (
    <section className="card" aria-labelledby="files-title">
      <div className="card-head">
        <h2 id="files-title" className="card-title">
          Files
        </h2>
        {running ? (
          <Button size="sm" onClick={() => picker.current?.click()} pending={uploading !== undefined}>
            <UploadIcon /> Upload a file
          </Button>
        ) : null}
      </div>
      <input
        ref={picker}
        type="file"
        // Not in the page's flow or tab order: the button opens it (a hidden file input still opens when clicked from script).
        hidden
        onChange={(e) => {
          const file = e.target.files?.[0];
          // Cleared at once, so choosing the same file again is a change too.
          e.target.value = "";
          if (file) void upload(file);
        }}
      />
      {uploading ? (
        <p className="muted small" role="status">
          Uploading {uploading}…
        </p>
      ) : null}
      {error ? <ErrorNotice error={error} compact /> : null}
      {files.error && !files.data ? <ErrorNotice error={files.error} compact onRetry={() => void reload()} /> : null}
      {list.length > 0 ? (
        <ul className="files" aria-label="Files in the session">
          {list.map((f) => (
            <li key={f.id} data-file-id={f.id}>
              <div className="download-line">
                <span className="download-name" title={f.name}>
                  {f.name}
                </span>
                <span className="muted small nowrap">
                  {formatBytes(f.size)} ·{" "}
                  <time dateTime={f.uploadedAt} title={formatDateTime(f.uploadedAt)}>
                    {formatTime(f.uploadedAt)}
                  </time>
                </span>
              </div>
              {f.available ? (
                <div className="file-path">
                  <code className="file-path-text" title={f.path} data-path={f.path}>
                    {/* A left-to-right mark: the box is right-to-left (to cut the path at its start), the path is not. */}
                    {`\u200e${f.path}`}
                  </code>
                  <CopyButton text={f.path} label="Copy path" />
                </div>
              ) : (
                <p className="muted small">Deleted with the browser.</p>
              )}
            </li>
          ))}
        </ul>
      ) : running && files.data ? (
        <p className="muted small">None yet. A file uploaded here can be put into the page’s file inputs by its path.</p>
      ) : null}
      {running && list.length > 0 ? (
        <p className="muted small files-hint">
          Give the path to <code>uploadFile(path)</code> (Puppeteer) or <code>DOM.setFileInputFiles</code>. Playwright reads paths on its own machine: give it
          the bytes,{" "}
          <code>
            setInputFiles(selector, {"{"} name, mimeType, buffer {"}"})
          </code>
          . Files are deleted when the session ends.
        </p>
      ) : null}
    </section>
  );
}
