import { useState } from "react";
import { DeleteProfileDocument, ProfileStorageStateDocument, ProfilesDocument, UpdateProfileDocument, type ProfileFieldsFragment } from "@gql/graphql.ts";
import { asApiError, request, type ApiError } from "../lib/api.ts";
import { download } from "../lib/browser.ts";
import { formatBytes, formatDateTime, formatRelative, plural, slugify } from "../lib/format.ts";
import { useMutation, useNow, useQuery, useTitle } from "../lib/hooks.ts";
import { useWorkspace, wsPath } from "../lib/me.tsx";
import { Link } from "../lib/router.tsx";
import { Button, EmptyState, ErrorNotice, Field, PageHeader, SkeletonRows, fieldError } from "../components/ui.tsx";
import { useToast } from "../components/toasts.tsx";
import { ConfirmDialog, Dialog } from "../components/dialogs.tsx";
import { DownloadIcon, ProfilesIcon } from "../components/icons.tsx";
import { shortId } from "../components/session-bits.tsx";

type Profile = ProfileFieldsFragment;

export function ProfilesPage() {
  const ws = useWorkspace();
  const toast = useToast();
  const now = useNow(30_000);
  const list = useQuery(ProfilesDocument, { workspace: ws.slug, limit: 100 });
  const [renaming, setRenaming] = useState<Profile | null>(null);
  const [deleting, setDeleting] = useState<Profile | null>(null);
  const [exporting, setExporting] = useState<string | null>(null);
  const [exportError, setExportError] = useState<ApiError | undefined>();
  const [more, setMore] = useState(false);
  const remove = useMutation(DeleteProfileDocument);
  useTitle("Profiles");

  const items = list.data?.profiles.items ?? [];
  const total = items.reduce((n, p) => n + p.sizeBytes, 0);

  const exportProfile = async (p: Profile) => {
    setExporting(p.profileId);
    setExportError(undefined);
    try {
      const { profileStorageState: state } = await request(ProfileStorageStateDocument, { workspace: ws.slug, id: p.profileId });
      // Playwright's storageState shape (plus per-origin sessionStorage, which Playwright ignores).
      const doc = {
        cookies: state.cookies.map((c) => ({
          name: c.name,
          value: c.value,
          domain: c.domain,
          path: c.path,
          expires: c.expires,
          httpOnly: c.httpOnly,
          secure: c.secure,
          sameSite: c.sameSite,
          ...(c.partitionKey ? { partitionKey: c.partitionKey } : {}),
        })),
        origins: state.origins.map((o) => ({ origin: o.origin, localStorage: o.localStorage, sessionStorage: o.sessionStorage })),
      };
      download(`${slugify(p.label) || p.profileId}.storage-state.json`, `${JSON.stringify(doc, null, 2)}\n`, "application/json");
      toast(`Exported “${p.label}”`);
    } catch (err) {
      setExportError(asApiError(err));
    } finally {
      setExporting(null);
    }
  };

  const doDelete = async () => {
    if (!deleting) return;
    if (await remove.run({ workspace: ws.slug, id: deleting.profileId })) {
      const label = deleting.label;
      list.set((prev) => prev && { profiles: { ...prev.profiles, items: prev.profiles.items.filter((x) => x.profileId !== deleting.profileId) } });
      setDeleting(null);
      toast(`Profile “${label}” deleted`);
    }
  };

  const loadMore = async () => {
    const cursor = list.data?.profiles.nextCursor;
    if (!cursor) return;
    setMore(true);
    try {
      const next = await request(ProfilesDocument, { workspace: ws.slug, limit: 100, cursor });
      list.set((prev) => prev && { profiles: { ...next.profiles, items: [...prev.profiles.items, ...next.profiles.items] } });
    } catch (err) {
      setExportError(asApiError(err));
    } finally {
      setMore(false);
    }
  };

  return (
    <>
      <PageHeader
        title="Profiles"
        description={
          <>
            Saved logins: cookies, localStorage and sessionStorage, encrypted. A session started from a profile is logged in before its first page loads.
            {items.length > 0 ? (
              <span className="muted">
                {" "}
                {plural(items.length, "profile")}, {formatBytes(total)} in all.
              </span>
            ) : null}
          </>
        }
      />
      {exportError ? <ErrorNotice error={exportError} compact /> : null}
      {list.error && !list.data ? (
        <ErrorNotice error={list.error} onRetry={() => void list.reload()} />
      ) : list.data && items.length === 0 ? (
        <EmptyState icon={<ProfilesIcon />} title="No profiles yet">
          <p>
            Log in once through a session’s live view, then use <strong>Save as profile</strong> on the session. Or import a Playwright storageState with the
            API (<code>POST /v1/profiles</code>).
          </p>
          <p>
            <Link to={wsPath(ws.slug, "sessions?new=1")}>Start a session</Link>
          </p>
        </EmptyState>
      ) : (
        <div className="table-wrap">
          <table className="table responsive-table">
            <caption className="visually-hidden">Profiles</caption>
            <thead>
              <tr>
                <th scope="col">Profile</th>
                <th scope="col">Contents</th>
                <th scope="col" className="num">
                  Size
                </th>
                <th scope="col">Updated</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {!list.data ? (
                <SkeletonRows cols={5} />
              ) : (
                items.map((p) => (
                  <tr key={p.profileId} data-profile-id={p.profileId}>
                    <td data-label="Profile">
                      <span className="strong">{p.label}</span>
                      <div className="muted small mono" title={p.profileId}>
                        {p.profileId}
                      </div>
                      {p.sourceSessionId ? (
                        <div className="muted small">saved from {shortId(p.sourceSessionId)}</div>
                      ) : (
                        <div className="muted small">imported</div>
                      )}
                    </td>
                    <td data-label="Contents" className="contents-cell">
                      <span className="nowrap">{plural(p.cookieCount, "cookie")}</span>
                      <span className="muted"> · </span>
                      <span className="nowrap">{plural(p.originCount, "origin")}</span>
                      <span className="muted"> · </span>
                      <span className="nowrap">{plural(p.keyCount, "storage item")}</span>
                    </td>
                    <td data-label="Size" className="num tabular nowrap">
                      {formatBytes(p.sizeBytes)}
                    </td>
                    <td data-label="Updated" className="nowrap">
                      <time dateTime={p.updatedAt} title={formatDateTime(p.updatedAt)}>
                        {formatRelative(p.updatedAt, now)}
                      </time>
                    </td>
                    <td className="row-actions">
                      <Button size="sm" variant="ghost" onClick={() => setRenaming(p)} aria-label={`Rename ${p.label}`}>
                        Rename
                      </Button>
                      <Button
                        size="sm"
                        variant="ghost"
                        onClick={() => void exportProfile(p)}
                        pending={exporting === p.profileId}
                        aria-label={`Export ${p.label} as storageState`}
                      >
                        <DownloadIcon /> Export
                      </Button>
                      <Button
                        size="sm"
                        variant="ghost"
                        className="danger-text"
                        onClick={() => {
                          remove.reset();
                          setDeleting(p);
                        }}
                        aria-label={`Delete ${p.label}`}
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
      {list.data?.profiles.hasMore ? (
        <div className="load-more">
          <Button onClick={() => void loadMore()} pending={more}>
            Load more
          </Button>
        </div>
      ) : null}
      <p className="footnote">
        An export holds the login’s cookies and storage in the clear (Playwright’s <code>storageState</code> format, with sessionStorage added). Keep the file
        safe; every export is in the audit log.
      </p>

      <RenameDialog
        profile={renaming}
        onClose={() => setRenaming(null)}
        onRenamed={(p) => {
          list.set((prev) => prev && { profiles: { ...prev.profiles, items: prev.profiles.items.map((x) => (x.profileId === p.profileId ? p : x)) } });
          toast(`Renamed to “${p.label}”`);
          setRenaming(null);
        }}
      />
      <ConfirmDialog
        open={deleting !== null}
        onClose={() => setDeleting(null)}
        onConfirm={() => void doDelete()}
        title={`Delete “${deleting?.label ?? ""}”?`}
        confirmLabel="Delete profile"
        pending={remove.pending}
        error={remove.error}
      >
        <p>
          The profile and its encryption key are destroyed; it cannot be recovered. Sessions already running keep what they have; new sessions can no longer
          start from it.
        </p>
      </ConfirmDialog>
    </>
  );
}

function RenameDialog({ profile, onClose, onRenamed }: { profile: Profile | null; onClose: () => void; onRenamed: (p: Profile) => void }) {
  return (
    <Dialog open={profile !== null} onClose={onClose} title="Rename profile">
      {profile ? <RenameForm key={profile.profileId} profile={profile} onClose={onClose} onRenamed={onRenamed} /> : null}
    </Dialog>
  );
}

function RenameForm({ profile, onClose, onRenamed }: { profile: Profile; onClose: () => void; onRenamed: (p: Profile) => void }) {
  const ws = useWorkspace();
  const [label, setLabel] = useState(profile.label);
  const update = useMutation(UpdateProfileDocument);
  return (
    <form
      noValidate
      onSubmit={async (e) => {
        e.preventDefault();
        const done = await update.run({ workspace: ws.slug, id: profile.profileId, label: label.trim() });
        if (done) onRenamed(done.updateProfile);
      }}
    >
      <Field id="rn-label" label="Name" error={fieldError(update.error, "label")}>
        <input id="rn-label" autoFocus value={label} maxLength={100} onChange={(e) => setLabel(e.target.value)} />
      </Field>
      {update.error && !fieldError(update.error, "label") ? <ErrorNotice error={update.error} compact /> : null}
      <div className="dialog-footer">
        <Button onClick={onClose}>Cancel</Button>
        <Button type="submit" variant="primary" pending={update.pending} disabled={!label.trim() || label.trim() === profile.label}>
          Save
        </Button>
      </div>
    </form>
  );
}
