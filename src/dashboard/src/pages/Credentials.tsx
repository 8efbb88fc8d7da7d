import { useState } from "react";
import {
  CreateCredentialDocument,
  CredentialsDocument,
  DeleteCredentialDocument,
  UpdateCredentialDocument,
  type CredentialFieldsFragment,
} from "@gql/graphql.ts";
import { formatDateTime, formatRelative } from "../lib/format.ts";
import { useMutation, useNow, useQuery, useTitle } from "../lib/hooks.ts";
import { useWorkspace } from "../lib/me.tsx";
import { Button, EmptyState, ErrorNotice, Field, PageHeader, SkeletonRows, fieldError } from "../components/ui.tsx";
import { useToast } from "../components/toasts.tsx";
import { ConfirmDialog, Dialog } from "../components/dialogs.tsx";
import { KeyIcon } from "../components/icons.tsx";

type Credential = CredentialFieldsFragment;

/**
 * The workspace's vault of logins (docs/credentials.md): add, replace secrets, delete, and when each
 * was last filled. Secrets go in through the form and are never shown again: the server has no way
 * to return them. Owners and admins manage; other members see the list.
 */
export function CredentialsPage() {
  const ws = useWorkspace();
  const toast = useToast();
  const now = useNow(30_000);
  const list = useQuery(CredentialsDocument, { workspace: ws.slug });
  const remove = useMutation(DeleteCredentialDocument);
  const [editing, setEditing] = useState<Credential | "new" | null>(null);
  const [deleting, setDeleting] = useState<Credential | null>(null);
  useTitle("Credentials");
  const items = list.data?.credentials.items ?? [];

  const doDelete = async () => {
    if (!deleting) return;
    if (await remove.run({ workspace: ws.slug, id: deleting.id })) {
      list.set((prev) => prev && { credentials: { ...prev.credentials, items: prev.credentials.items.filter((c) => c.id !== deleting.id) } });
      toast(`Credential “${deleting.name}” deleted`);
      setDeleting(null);
    }
  };

  return (
    <>
      <PageHeader
        title="Credentials"
        description="Logins the server fills into sessions for agents (fill_credential), without the agent ever seeing them. Secrets are write-only."
        actions={
          ws.canAdmin ? (
            <Button variant="primary" onClick={() => setEditing("new")}>
              <KeyIcon /> Add credential
            </Button>
          ) : null
        }
      />
      {list.error && !list.data ? (
        <ErrorNotice error={list.error} onRetry={() => void list.reload()} />
      ) : list.data && items.length === 0 ? (
        <EmptyState icon={<KeyIcon />} title="No credentials yet">
          <p>
            Add a login with the origins it belongs to; agents then sign in with <code>fill_credential</code> (MCP) or{" "}
            <code>POST /v1/sessions/…/credentials/…/fill</code>.
          </p>
        </EmptyState>
      ) : (
        <div className="table-wrap">
          <table className="table responsive-table">
            <caption className="visually-hidden">Credentials</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Username</th>
                <th scope="col">Origins</th>
                <th scope="col">Last used</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {!list.data ? (
                <SkeletonRows cols={5} />
              ) : (
                items.map((c) => (
                  <tr key={c.id} data-credential-id={c.id}>
                    <td data-label="Name">
                      <span className="strong">{c.name}</span>
                      {c.hasTotp ? <span className="muted small"> · TOTP</span> : null}
                      <div className="muted small mono">{c.id}</div>
                    </td>
                    <td data-label="Username" className="mono">
                      {c.usernameHint}
                    </td>
                    <td data-label="Origins" className="small">
                      {c.origins.join(", ")}
                    </td>
                    <td data-label="Last used" className="nowrap">
                      {c.lastUsedAt ? (
                        <time dateTime={c.lastUsedAt} title={formatDateTime(c.lastUsedAt)}>
                          {formatRelative(c.lastUsedAt, now)}
                        </time>
                      ) : (
                        <span className="muted">never</span>
                      )}
                    </td>
                    <td className="row-actions">
                      {ws.canAdmin ? (
                        <>
                          <Button size="sm" variant="ghost" onClick={() => setEditing(c)} aria-label={`Replace ${c.name}`}>
                            Replace
                          </Button>
                          <Button
                            size="sm"
                            variant="ghost"
                            className="danger-text"
                            onClick={() => {
                              remove.reset();
                              setDeleting(c);
                            }}
                            aria-label={`Delete ${c.name}`}
                          >
                            Delete
                          </Button>
                        </>
                      ) : null}
                    </td>
                  </tr>
                ))
              )}
            </tbody>
          </table>
        </div>
      )}
      {editing ? (
        <CredentialDialog
          credential={editing === "new" ? null : editing}
          onClose={() => setEditing(null)}
          onSaved={(saved) => {
            toast(`Credential “${saved.name}” saved`);
            setEditing(null);
            void list.reload();
          }}
        />
      ) : null}
      <ConfirmDialog
        open={deleting !== null}
        onClose={() => setDeleting(null)}
        onConfirm={() => void doDelete()}
        title={`Delete “${deleting?.name ?? ""}”?`}
        confirmLabel="Delete credential"
        pending={remove.pending}
        error={remove.error}
      >
        <p>The login and its encryption key are destroyed; agents can no longer fill it.</p>
      </ConfirmDialog>
    </>
  );
}

/** Adds a credential, or replaces one's secrets (blank fields keep what is stored). */
function CredentialDialog({ credential, onClose, onSaved }: { credential: Credential | null; onClose: () => void; onSaved: (c: Credential) => void }) {
  const ws = useWorkspace();
  const create = useMutation(CreateCredentialDocument);
  const update = useMutation(UpdateCredentialDocument);
  const [name, setName] = useState(credential?.name ?? "");
  const [origins, setOrigins] = useState(credential?.origins.join("\n") ?? "");
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const [totp, setTotp] = useState("");
  const error = create.error ?? update.error;
  const originList = origins
    .split(/[\s,]+/)
    .map((o) => o.trim())
    .filter(Boolean);
  const submit = async () => {
    if (credential) {
      const done = await update.run({
        workspace: ws.slug,
        id: credential.id,
        input: {
          name: name.trim(),
          origins: originList,
          ...(username ? { username } : {}),
          ...(password ? { password } : {}),
          ...(totp ? { totpSecret: totp } : {}),
        },
      });
      if (done) onSaved(done.updateCredential);
    } else {
      const done = await create.run({
        workspace: ws.slug,
        input: { name: name.trim(), origins: originList, username, password, ...(totp ? { totpSecret: totp } : {}) },
      });
      if (done) onSaved(done.createCredential);
    }
  };
  const ready = name.trim() !== "" && originList.length > 0 && (credential !== null || (username !== "" && password !== ""));
  return (
    <Dialog
      open
      onClose={onClose}
      title={credential ? `Replace “${credential.name}”` : "Add credential"}
      description={
        credential ? "Blank secret fields keep what is stored. Stored secrets are never shown." : "The secrets are sealed on the server and never shown again."
      }
      onSubmit={submit}
      footer={
        <>
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant="primary" pending={create.pending || update.pending} disabled={!ready}>
            Save
          </Button>
        </>
      }
    >
      <Field id="cred-name" label="Name" error={fieldError(error, "name")}>
        <input id="cred-name" value={name} maxLength={100} onChange={(e) => setName(e.target.value)} placeholder="crm" />
      </Field>
      <Field id="cred-origins" label="Origins" hint="One per line: https://login.example.com" error={fieldError(error, "origins")}>
        <textarea id="cred-origins" value={origins} rows={2} onChange={(e) => setOrigins(e.target.value)} />
      </Field>
      <Field id="cred-username" label="Username" error={fieldError(error, "username")}>
        <input
          id="cred-username"
          value={username}
          autoComplete="off"
          onChange={(e) => setUsername(e.target.value)}
          placeholder={credential?.usernameHint ?? ""}
        />
      </Field>
      <Field id="cred-password" label="Password" error={fieldError(error, "password")}>
        <input id="cred-password" type="password" autoComplete="new-password" value={password} onChange={(e) => setPassword(e.target.value)} />
      </Field>
      <Field
        id="cred-totp"
        label="TOTP secret (optional)"
        hint="The base32 key of the site's authenticator setup"
        error={fieldError(error, "totp_secret", "totpSecret")}
      >
        <input id="cred-totp" type="password" autoComplete="off" value={totp} onChange={(e) => setTotp(e.target.value)} />
      </Field>
      {error && !fieldError(error, "name", "origins", "username", "password", "totp_secret") ? <ErrorNotice error={error} compact /> : null}
    </Dialog>
  );
}
