import { useMemo, useState } from "react";
import { ApiKeysDocument, CreateApiKeyDocument, MembersDocument, RevokeApiKeyDocument, type ApiKeysQuery } from "@gql/graphql.ts";
import { formatDate, formatDateTime, formatRelative } from "../lib/format.ts";
import { useMutation, useNow, useQuery, useTitle } from "../lib/hooks.ts";
import { useMe, useWorkspace, wsPath } from "../lib/me.tsx";
import { Link } from "../lib/router.tsx";
import { Badge, Button, CopyButton, EmptyState, ErrorNotice, Field, Notice, PageHeader, SkeletonRows, fieldError } from "../components/ui.tsx";
import { useToast } from "../components/toasts.tsx";
import { ConfirmDialog, Dialog } from "../components/dialogs.tsx";
import { ScopeChecks } from "./api-key-scopes.tsx";
import { KeyIcon, PlusIcon } from "../components/icons.tsx";
import { StartSessionCurl } from "../components/start-session-curl.tsx";

type Key = ApiKeysQuery["apiKeys"][number];

/** `vs_01J9Z…` then dots for the secret part: enough to recognise a key, nothing to use. */
function masked(prefix: string): string {
  return `${prefix}.••••••••`;
}

export function ApiKeysPage() {
  const ws = useWorkspace();
  const { me } = useMe();
  const toast = useToast();
  const now = useNow(30_000);
  const keys = useQuery(ApiKeysDocument, { workspace: ws.slug });
  const members = useQuery(MembersDocument, { workspace: ws.slug });
  const [creating, setCreating] = useState(false);
  const [revoking, setRevoking] = useState<Key | null>(null);
  const [endSessions, setEndSessions] = useState(false);
  const revoke = useMutation(RevokeApiKeyDocument);
  useTitle("API keys");

  const emails = useMemo(() => new Map((members.data?.members ?? []).map((m) => [m.userId, m.email])), [members.data]);
  const person = (id: string | null | undefined) => (!id ? "—" : id === me.id ? "you" : (emails.get(id) ?? "a former member"));

  const sorted = useMemo(() => {
    const all = keys.data?.apiKeys ?? [];
    const active = all.filter((k) => !k.revokedAt).sort((a, b) => b.createdAt.localeCompare(a.createdAt));
    const revoked = all.filter((k) => k.revokedAt).sort((a, b) => (b.revokedAt ?? "").localeCompare(a.revokedAt ?? ""));
    return [...active, ...revoked];
  }, [keys.data]);

  const doRevoke = async () => {
    if (!revoking) return;
    const done = await revoke.run({ workspace: ws.slug, id: revoking.id, endSessions });
    if (done) {
      keys.set((prev) => prev && { apiKeys: prev.apiKeys.map((k) => (k.id === revoking.id ? { ...k, revokedAt: done.revokeApiKey.revokedAt } : k)) });
      toast(endSessions ? `Key “${revoking.label}” revoked and its sessions ended` : `Key “${revoking.label}” revoked`);
      setRevoking(null);
    }
  };

  return (
    <>
      <PageHeader
        title="API keys"
        description={<>Keys let your code start sessions and manage profiles in {ws.name}. Each belongs to this workspace only.</>}
        actions={
          ws.canAdmin ? (
            <Button variant="primary" onClick={() => setCreating(true)}>
              <PlusIcon /> Create key
            </Button>
          ) : null
        }
      />
      {!ws.canAdmin ? <Notice>Only owners and admins create and revoke keys. You can see which keys exist and when they were last used.</Notice> : null}

      {keys.error && !keys.data ? (
        <ErrorNotice error={keys.error} onRetry={() => void keys.reload()} />
      ) : keys.data && sorted.length === 0 ? (
        <EmptyState
          icon={<KeyIcon />}
          title="No API keys yet"
          action={
            ws.canAdmin ? (
              <Button variant="primary" onClick={() => setCreating(true)}>
                <PlusIcon /> Create your first key
              </Button>
            ) : null
          }
        >
          <p>
            Your backend sends a key as <code>Authorization: Bearer vs_…</code> with every call.
          </p>
        </EmptyState>
      ) : (
        <div className="table-wrap">
          <table className="table responsive-table keys-table">
            <caption className="visually-hidden">API keys, active first</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Key</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">Status</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {!keys.data ? (
                <SkeletonRows cols={6} />
              ) : (
                sorted.map((k) => (
                  <tr key={k.id} className={k.revokedAt ? "is-revoked" : undefined} data-key-prefix={k.prefix}>
                    <td data-label="Name" className="strong">
                      {k.label}
                    </td>
                    <td data-label="Key">
                      <code className="key-prefix" title={`Prefix ${k.prefix}; the secret is never shown again`}>
                        {masked(k.prefix)}
                      </code>
                    </td>
                    <td data-label="Created">
                      <span title={formatDateTime(k.createdAt)}>{formatDate(k.createdAt)}</span>
                      <div className="muted small">by {person(k.createdByUserId)}</div>
                    </td>
                    <td data-label="Last used">
                      {k.lastUsedAt ? (
                        <time dateTime={k.lastUsedAt} title={formatDateTime(k.lastUsedAt)}>
                          {formatRelative(k.lastUsedAt, now)}
                        </time>
                      ) : (
                        <span className="muted">Never</span>
                      )}
                    </td>
                    <td data-label="Status">
                      {k.revokedAt ? (
                        <span className="revoked-note">
                          <Badge>Revoked</Badge> <span className="muted small">{formatDate(k.revokedAt)}</span>
                        </span>
                      ) : (
                        <Badge tone="green" dot>
                          Active
                        </Badge>
                      )}
                    </td>
                    <td className="row-actions">
                      {ws.canAdmin ? (
                        <Link
                          className="btn btn-ghost btn-sm"
                          to={wsPath(ws.slug, `audit-log?key=${encodeURIComponent(k.prefix)}`)}
                          aria-label={`Activity of ${k.label}`}
                        >
                          Activity
                        </Link>
                      ) : null}
                      {ws.canAdmin && !k.revokedAt ? (
                        <Button
                          size="sm"
                          variant="ghost"
                          className="danger-text"
                          onClick={() => {
                            revoke.reset();
                            setEndSessions(false);
                            setRevoking(k);
                          }}
                          aria-label={`Revoke ${k.label}`}
                        >
                          Revoke
                        </Button>
                      ) : null}
                    </td>
                  </tr>
                ))
              )}
            </tbody>
          </table>
        </div>
      )}
      {keys.data && sorted.some((k) => k.revokedAt) ? (
        <p className="footnote">Revoked keys stay listed for 90 days, then they are deleted. A revoked key is refused from its very next request.</p>
      ) : null}

      <section className="card guide" aria-labelledby="rotate-title">
        <h2 id="rotate-title" className="card-title">
          Rotating a key
        </h2>
        <p className="muted">Keys never expire and are not rotated for you. To replace one without downtime:</p>
        <ol className="steps">
          <li>
            <strong>Create a new key</strong> with a name that tells them apart (for example “backend, v2”).
          </li>
          <li>
            <strong>Switch your clients</strong> to the new key and deploy them.
          </li>
          <li>
            <strong>Watch the old key’s “Last used”</strong> here: once it stops advancing, nothing uses it any more.
          </li>
          <li>
            <strong>Revoke the old key.</strong> Anything still using it gets 401 from its next request, on every node.
          </li>
        </ol>
      </section>

      <CreateKeyDialog open={creating} onClose={() => setCreating(false)} onCreated={() => void keys.reload()} />
      <ConfirmDialog
        open={revoking !== null}
        onClose={() => setRevoking(null)}
        onConfirm={() => void doRevoke()}
        title={`Revoke “${revoking?.label ?? ""}”?`}
        confirmLabel="Revoke key"
        pending={revoke.pending}
        error={revoke.error}
      >
        <p>
          <code>{revoking ? masked(revoking.prefix) : ""}</code> stops working immediately, on every node: clients still using it get 401. This cannot be
          undone.
        </p>
        {revoking?.lastUsedAt ? <p className="muted">It was last used {formatRelative(revoking.lastUsedAt)}.</p> : null}
        <label className="check">
          <input type="checkbox" checked={endSessions} onChange={(e) => setEndSessions(e.target.checked)} />
          <span>
            Also end the sessions this key started
            <span className="field-hint block">
              Otherwise they run on until they end: their CDP and live-view addresses keep working. Ended ones close with the reason “the API key that started
              it was revoked”.
            </span>
          </span>
        </label>
      </ConfirmDialog>
    </>
  );
}

function CreateKeyDialog({ open, onClose, onCreated }: { open: boolean; onClose: () => void; onCreated: () => void }) {
  const ws = useWorkspace();
  const [label, setLabel] = useState("");
  const [scopes, setScopes] = useState<string[]>([]);
  const [secret, setSecret] = useState<string | null>(null);
  const create = useMutation(CreateApiKeyDocument);
  const close = () => {
    setLabel("");
    setScopes([]);
    setSecret(null);
    create.reset();
    onClose();
  };
  if (secret) {
    return (
      <Dialog
        open={open}
        onClose={close}
        title="Your new API key"
        footer={
          <Button variant="primary" onClick={close}>
            I’ve saved it
          </Button>
        }
      >
        <Notice tone="warning" title="Copy it now. You won’t see it again.">
          <p>Only a hash of the key is stored, so nobody, not even an owner, can show it again. If it is lost, create a new key and revoke this one.</p>
        </Notice>
        <div className="secret-row">
          <input className="mono secret" readOnly value={secret} aria-label="New API key" onFocus={(e) => e.currentTarget.select()} />
          <CopyButton text={secret} />
        </div>
        <p className="muted small">
          Try it: this starts a session and answers with its <code>connect_url</code> for Puppeteer or Playwright.
        </p>
        <StartSessionCurl apiKey={secret} small copyButton={false} />
      </Dialog>
    );
  }
  return (
    <Dialog
      open={open}
      onClose={close}
      title="Create API key"
      description="Name it after what will use it, so you know what breaks when you revoke it."
      onSubmit={async () => {
        const done = await create.run({ workspace: ws.slug, label: label.trim(), scopes });
        if (done) {
          setSecret(done.createApiKey.secret);
          onCreated();
        }
      }}
      footer={
        <>
          <Button onClick={close}>Cancel</Button>
          <Button type="submit" variant="primary" pending={create.pending} disabled={!label.trim()}>
            Create key
          </Button>
        </>
      }
    >
      <Field id="key-label" label="Name" error={fieldError(create.error, "label")}>
        <input id="key-label" autoFocus value={label} maxLength={100} onChange={(e) => setLabel(e.target.value)} placeholder="Production backend" />
      </Field>
      <ScopeChecks scopes={scopes} onChange={setScopes} />
      {create.error && !fieldError(create.error, "label") ? <ErrorNotice error={create.error} compact /> : null}
    </Dialog>
  );
}
