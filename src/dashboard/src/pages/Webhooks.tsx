import { useState } from "react";
import {
  DeleteWebhookDocument,
  RotateWebhookSecretDocument,
  TestWebhookDocument,
  UpdateWebhookDocument,
  WebhooksDocument,
  type WebhookFieldsFragment,
} from "@gql/graphql.ts";
import { formatDate, formatDateTime, formatRelative } from "../lib/format.ts";
import { useMutation, useNow, useQuery, useTitle } from "../lib/hooks.ts";
import { useWorkspace } from "../lib/me.tsx";
import { Badge, Button, Denied, EmptyState, ErrorNotice, Notice, PageHeader, SkeletonRows } from "../components/ui.tsx";
import { useToast } from "../components/toasts.tsx";
import { ConfirmDialog } from "../components/dialogs.tsx";
import { PlusIcon, WebhookIcon } from "../components/icons.tsx";
import { CreateWebhookDialog, SecretDialog } from "./webhook-dialogs.tsx";
import { DeliveryLog } from "./webhook-deliveries.tsx";

type Webhook = WebhookFieldsFragment;

/**
 * The workspace's webhooks (owners and admins): add one (its secret shown once), see its delivery
 * log, send it a test event, rotate its secret, turn it off or on, delete it. An endpoint Vessel
 * disabled after 3 days of failures is announced at the top until someone turns it back on.
 */
export function WebhooksPage() {
  const ws = useWorkspace();
  const toast = useToast();
  const now = useNow(30_000);
  const list = useQuery(WebhooksDocument, { workspace: ws.slug }, { skip: !ws.canAdmin });
  const update = useMutation(UpdateWebhookDocument);
  const remove = useMutation(DeleteWebhookDocument);
  const rotate = useMutation(RotateWebhookSecretDocument);
  const test = useMutation(TestWebhookDocument);
  const [creating, setCreating] = useState(false);
  const [selected, setSelected] = useState<string | null>(null);
  const [logKey, setLogKey] = useState(0);
  const [deleting, setDeleting] = useState<Webhook | null>(null);
  const [rotating, setRotating] = useState<Webhook | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  useTitle("Webhooks");

  if (!ws.canAdmin) return <Denied detail="Only owners and admins of the workspace manage its webhooks." role={ws.role} />;

  const items = [...(list.data?.webhooks.items ?? [])].reverse();
  const disabled = items.filter((w) => !w.enabled && w.disabledReason && w.disabledReason !== "turned off");
  const shown = items.find((w) => w.id === selected) ?? items[0];
  const replace = (w: Webhook) =>
    list.set((prev) => prev && { webhooks: { ...prev.webhooks, items: prev.webhooks.items.map((x) => (x.id === w.id ? w : x)) } });
  const mutationError = update.error ?? test.error;

  const setEnabled = async (w: Webhook, enabled: boolean) => {
    const done = await update.run({ workspace: ws.slug, id: w.id, enabled });
    if (done) {
      replace(done.updateWebhook);
      toast(enabled ? `Webhook turned on: ${w.url}` : `Webhook turned off: ${w.url}`);
    }
  };
  const sendTest = async (w: Webhook) => {
    if (await test.run({ workspace: ws.slug, id: w.id })) {
      toast("Test event queued");
      setSelected(w.id);
      // The log is read again once the attempt has had a moment to answer.
      setTimeout(() => setLogKey((k) => k + 1), 1200);
    }
  };
  const doRotate = async () => {
    if (!rotating) return;
    const done = await rotate.run({ workspace: ws.slug, id: rotating.id });
    if (done) {
      replace(done.rotateWebhookSecret.webhook);
      setRotating(null);
      setSecret(done.rotateWebhookSecret.secret);
    }
  };
  const doDelete = async () => {
    if (!deleting) return;
    if (await remove.run({ workspace: ws.slug, id: deleting.id })) {
      list.set((prev) => prev && { webhooks: { ...prev.webhooks, items: prev.webhooks.items.filter((x) => x.id !== deleting.id) } });
      toast(`Webhook deleted: ${deleting.url}`);
      setDeleting(null);
    }
  };

  return (
    <>
      <PageHeader
        title="Webhooks"
        description={<>Vessel POSTs your sessions’ events to these addresses, signed (Standard Webhooks), retrying for 24 hours until they answer 2xx.</>}
        actions={
          <Button variant="primary" onClick={() => setCreating(true)}>
            <PlusIcon /> Add webhook
          </Button>
        }
      />
      {disabled.map((w) => (
        <Notice key={w.id} tone="warning" title={`Webhook disabled: ${w.url}`}>
          <p>
            Vessel stopped sending to it on {formatDate(w.disabledAt)}: {w.disabledReason}. Fix the receiver, then turn it back on; events since then were not
            sent.
          </p>
          <Button size="sm" onClick={() => void setEnabled(w, true)} pending={update.pending}>
            Turn it back on
          </Button>
        </Notice>
      ))}
      {mutationError ? <ErrorNotice error={mutationError} compact /> : null}
      {list.error && !list.data ? (
        <ErrorNotice error={list.error} onRetry={() => void list.reload()} />
      ) : list.data && items.length === 0 ? (
        <EmptyState
          icon={<WebhookIcon />}
          title="No webhooks yet"
          action={
            <Button variant="primary" onClick={() => setCreating(true)}>
              <PlusIcon /> Add your first webhook
            </Button>
          }
        >
          <p>Learn that a session ended or that a person clicked Done without holding a connection open: add your endpoint’s URL and choose the events.</p>
        </EmptyState>
      ) : (
        <div className="table-wrap">
          <table className="table responsive-table webhooks-table">
            <caption className="visually-hidden">Webhooks, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Endpoint</th>
                <th scope="col">Events</th>
                <th scope="col">Status</th>
                <th scope="col">Added</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {!list.data ? (
                <SkeletonRows cols={5} />
              ) : (
                items.map((w) => (
                  <tr key={w.id} data-webhook-id={w.id} className={shown?.id === w.id ? "is-selected" : undefined}>
                    <td data-label="Endpoint" className="webhook-url">
                      <span className="strong mono">{w.url}</span>
                      {w.description ? <div className="muted small">{w.description}</div> : null}
                    </td>
                    <td data-label="Events">
                      <div className="event-tags">
                        {w.events.map((e) => (
                          <code key={e}>{e}</code>
                        ))}
                      </div>
                    </td>
                    <td data-label="Status">
                      {w.enabled ? (
                        <Badge tone="green" dot>
                          Active
                        </Badge>
                      ) : (
                        <Badge tone={w.disabledReason === "turned off" ? "neutral" : "red"} dot>
                          {w.disabledReason === "turned off" ? "Off" : "Disabled"}
                        </Badge>
                      )}
                      {w.previousSecretExpiresAt ? (
                        <div className="muted small" title={formatDateTime(w.previousSecretExpiresAt)}>
                          old secret signs until {formatRelative(w.previousSecretExpiresAt, now).replace(/^in /, "")}
                        </div>
                      ) : null}
                    </td>
                    <td data-label="Added" className="nowrap">
                      <time dateTime={w.createdAt} title={formatDateTime(w.createdAt)}>
                        {formatRelative(w.createdAt, now)}
                      </time>
                    </td>
                    <td className="row-actions">
                      <Button size="sm" variant="ghost" onClick={() => setSelected(w.id)} aria-pressed={shown?.id === w.id}>
                        Deliveries
                      </Button>
                      <Button size="sm" variant="ghost" onClick={() => void sendTest(w)} disabled={!w.enabled} pending={test.pending && selected === w.id}>
                        Send test event
                      </Button>
                      <Button
                        size="sm"
                        variant="ghost"
                        onClick={() => {
                          rotate.reset();
                          setRotating(w);
                        }}
                      >
                        Rotate secret
                      </Button>
                      <Button size="sm" variant="ghost" onClick={() => void setEnabled(w, !w.enabled)}>
                        {w.enabled ? "Turn off" : "Turn on"}
                      </Button>
                      <Button
                        size="sm"
                        variant="ghost"
                        className="danger-text"
                        onClick={() => {
                          remove.reset();
                          setDeleting(w);
                        }}
                        aria-label={`Delete ${w.url}`}
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
      {shown ? <DeliveryLog key={`${shown.id}:${logKey}`} webhook={shown} /> : null}
      <p className="footnote">
        Each request carries <code>webhook-id</code> (the same on every retry: de-duplicate by it), <code>webhook-timestamp</code> and{" "}
        <code>webhook-signature</code>; check them with <code>verifyWebhook</code> from the client libraries. An endpoint failing for 3 days is disabled.
      </p>

      <CreateWebhookDialog
        open={creating}
        onClose={() => setCreating(false)}
        onCreated={(w) => {
          list.set((prev) => prev && { webhooks: { ...prev.webhooks, items: [...prev.webhooks.items, w] } });
          setSelected(w.id);
        }}
      />
      <SecretDialog open={secret !== null} secret={secret ?? ""} title="New signing secret" rotated onClose={() => setSecret(null)} />
      <ConfirmDialog
        open={rotating !== null}
        onClose={() => setRotating(null)}
        onConfirm={() => void doRotate()}
        title="Rotate the signing secret?"
        confirmLabel="Rotate secret"
        pending={rotate.pending}
        error={rotate.error}
      >
        <p>A new secret is made and shown once. For 24 hours every delivery is signed with both, so your receiver can switch without missing one.</p>
      </ConfirmDialog>
      <ConfirmDialog
        open={deleting !== null}
        onClose={() => setDeleting(null)}
        onConfirm={() => void doDelete()}
        title="Delete this webhook?"
        confirmLabel="Delete webhook"
        pending={remove.pending}
        error={remove.error}
      >
        <p>
          <span className="mono">{deleting?.url}</span> gets nothing more, and its delivery log and secret are deleted.
        </p>
      </ConfirmDialog>
    </>
  );
}
