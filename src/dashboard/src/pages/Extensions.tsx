import { useRef, useState } from "react";
import { DeleteExtensionDocument, ExtensionsDocument, UploadExtensionDocument, type ExtensionFieldsFragment } from "@gql/graphql.ts";
import { ApiError, asApiError } from "../lib/api.ts";
import { base64Of } from "../lib/browser.ts";
import { formatBytes, formatDateTime, formatRelative, plural } from "../lib/format.ts";
import { useMutation, useNow, useQuery, useTitle } from "../lib/hooks.ts";
import { useWorkspace } from "../lib/me.tsx";
import { Button, EmptyState, ErrorNotice, PageHeader, SkeletonRows } from "../components/ui.tsx";
import { useToast } from "../components/toasts.tsx";
import { ConfirmDialog } from "../components/dialogs.tsx";
import { PuzzleIcon, UploadIcon } from "../components/icons.tsx";

type Extension = ExtensionFieldsFragment;

/** The server's limit for an extension's zip (docs/session-options.md): refused here before it is read. */
const ZIP_MAX_BYTES = 16 * 1024 * 1024;

/**
 * The workspace's browser extensions: upload a zip of an unpacked Manifest V3 extension, see what
 * is there, delete. Uploads go over GraphQL as base64, because the REST route takes API keys only.
 */
export function ExtensionsPage() {
  const ws = useWorkspace();
  const toast = useToast();
  const now = useNow(30_000);
  const list = useQuery(ExtensionsDocument, { workspace: ws.slug });
  const upload = useMutation(UploadExtensionDocument);
  const remove = useMutation(DeleteExtensionDocument);
  const picker = useRef<HTMLInputElement>(null);
  const [deleting, setDeleting] = useState<Extension | null>(null);
  const [uploadError, setUploadError] = useState<ApiError | undefined>();
  const [reading, setReading] = useState(false);
  useTitle("Extensions");

  // Newest first, as the other lists of the dashboard (the server lists by id, oldest first).
  const items = [...(list.data?.extensions ?? [])].reverse();
  const total = items.reduce((n, e) => n + e.sizeBytes, 0);

  const send = async (file: File) => {
    setUploadError(undefined);
    upload.reset();
    if (file.size > ZIP_MAX_BYTES) {
      setUploadError(
        new ApiError(`${file.name} is ${formatBytes(file.size)}; an extension's zip may be at most ${formatBytes(ZIP_MAX_BYTES)}.`, "PAYLOAD_TOO_LARGE", 413),
      );
      return;
    }
    let zipBase64: string;
    setReading(true);
    try {
      zipBase64 = await base64Of(file);
    } catch (err) {
      setUploadError(asApiError(err));
      return;
    } finally {
      setReading(false);
    }
    const made = await upload.run({ workspace: ws.slug, zipBase64 });
    if (!made) return;
    list.set((prev) => prev && { extensions: [...prev.extensions, made.uploadExtension] });
    toast(`Extension “${made.uploadExtension.name}” ${made.uploadExtension.version} uploaded`);
  };

  const doDelete = async () => {
    if (!deleting) return;
    if (await remove.run({ workspace: ws.slug, id: deleting.id })) {
      list.set((prev) => prev && { extensions: prev.extensions.filter((x) => x.id !== deleting.id) });
      toast(`Extension “${deleting.name}” deleted`);
      setDeleting(null);
    }
  };

  const uploadButton = (
    <Button variant="primary" onClick={() => picker.current?.click()} pending={reading || upload.pending}>
      <UploadIcon /> Upload extension
    </Button>
  );
  const error = uploadError ?? upload.error;

  return (
    <>
      <PageHeader
        title="Extensions"
        description={
          <>
            Chromium extensions (Manifest V3, zipped), stored encrypted. A session loads the ones chosen at its start, and only those.
            {items.length > 0 ? (
              <span className="muted">
                {" "}
                {plural(items.length, "extension")}, {formatBytes(total)} in all.
              </span>
            ) : null}
          </>
        }
        actions={uploadButton}
      />
      <input
        ref={picker}
        type="file"
        accept=".zip,application/zip"
        // Not in the page's flow or tab order: the button opens it (a hidden file input still opens when clicked from script).
        hidden
        onChange={(e) => {
          const file = e.target.files?.[0];
          // Cleared at once, so the same file can be chosen again after fixing it.
          e.target.value = "";
          if (file) void send(file);
        }}
      />
      {error ? <ErrorNotice error={error} compact /> : null}
      {list.error && !list.data ? (
        <ErrorNotice error={list.error} onRetry={() => void list.reload()} />
      ) : list.data && items.length === 0 ? (
        <EmptyState icon={<PuzzleIcon />} title="No extensions yet">
          <p>
            Upload a zip of an unpacked Manifest V3 extension (its <code>manifest.json</code> at the top, or in the one folder at the top), then choose it under{" "}
            <strong>Advanced</strong> when starting a session, or pass its id in <code>extension_ids</code>.
          </p>
        </EmptyState>
      ) : (
        <div className="table-wrap">
          <table className="table responsive-table">
            <caption className="visually-hidden">Extensions, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Extension</th>
                <th scope="col">Version</th>
                <th scope="col" className="num">
                  Size
                </th>
                <th scope="col">Uploaded</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {!list.data ? (
                <SkeletonRows cols={5} />
              ) : (
                items.map((e) => (
                  <tr key={e.id} data-extension-id={e.id}>
                    <td data-label="Extension">
                      <span className="strong">{e.name}</span>
                      <div className="muted small mono" title={e.id}>
                        {e.id}
                      </div>
                    </td>
                    <td data-label="Version" className="tabular">
                      {e.version}
                    </td>
                    <td data-label="Size" className="num tabular nowrap">
                      {formatBytes(e.sizeBytes)}
                    </td>
                    <td data-label="Uploaded" className="nowrap">
                      <time dateTime={e.createdAt} title={formatDateTime(e.createdAt)}>
                        {formatRelative(e.createdAt, now)}
                      </time>
                    </td>
                    <td className="row-actions">
                      <Button
                        size="sm"
                        variant="ghost"
                        className="danger-text"
                        onClick={() => {
                          remove.reset();
                          setDeleting(e);
                        }}
                        aria-label={`Delete ${e.name}`}
                      >
                        Delete
                      </Button>
                    </td>
                  </tr>
                ))
              )}
            </tbody>
          </table>
        </div>
      )}
      <p className="footnote">
        Extensions load only where Vessel runs full Chromium (<code>VESSEL_CHROMIUM_PATH=/usr/lib/chromium/chromium</code>); with the default headless shell, a
        session that asks for one is refused. Automation can never load an extension itself.
      </p>

      <ConfirmDialog
        open={deleting !== null}
        onClose={() => setDeleting(null)}
        onConfirm={() => void doDelete()}
        title={`Delete “${deleting?.name ?? ""}”?`}
        confirmLabel="Delete extension"
        pending={remove.pending}
        error={remove.error}
      >
        <p>The extension and its encryption key are destroyed. Sessions running with it keep it until they end; new sessions can no longer ask for it.</p>
      </ConfirmDialog>
    </>
  );
}
