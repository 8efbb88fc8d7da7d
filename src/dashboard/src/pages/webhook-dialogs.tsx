import { useState } from "react";
import { CreateWebhookDocument, type WebhookFieldsFragment } from "@gql/graphql.ts";
import { useMutation } from "../lib/hooks.ts";
import { useWorkspace } from "../lib/me.tsx";
import { Button, CopyButton, ErrorNotice, Field, Notice, fieldError } from "../components/ui.tsx";
import { Dialog } from "../components/dialogs.tsx";
import { CodeBlock } from "../components/code-block.tsx";

/** What an endpoint may subscribe to (the server's list, services/webhooks/webhook-input.ts). */
export const webhookEvents = [
  { type: "session.running", hint: "a session started" },
  { type: "session.released", hint: "released by its owner or an admin" },
  { type: "session.timed_out", hint: "reached its time limit" },
  { type: "session.failed", hint: "its browser failed or its node stopped" },
  { type: "live_view.done", hint: "a person clicked Done in the live view" },
  { type: "download.completed", hint: "a download finished" },
  { type: "recording.ready", hint: "a session's recording is stored" },
] as const;

/** The signing secret, shown once after a create or a rotation. */
export function SecretDialog({
  open,
  secret,
  title,
  onClose,
  rotated,
}: {
  open: boolean;
  secret: string;
  title: string;
  onClose: () => void;
  rotated?: boolean;
}) {
  return (
    <Dialog
      open={open}
      onClose={onClose}
      title={title}
      footer={
        <Button variant="primary" onClick={onClose}>
          I’ve saved it
        </Button>
      }
    >
      <Notice tone="warning" title="Copy the signing secret now. You won’t see it again.">
        <p>
          It is stored encrypted and never shown again.{" "}
          {rotated ? "The previous secret keeps signing alongside it for 24 hours, so switch your receiver within that time." : "If it is lost, rotate it."}
        </p>
      </Notice>
      <div className="secret-row">
        <input className="mono secret" readOnly value={secret} aria-label="Signing secret" onFocus={(e) => e.currentTarget.select()} />
        <CopyButton text={secret} />
      </div>
      <p className="muted small">Check each delivery with it (the raw body, as received):</p>
      <CodeBlock label="Signature check example" small>
        {`import { verifyWebhook } from "@vessel/client";\n// rawBody: the request's bytes, as received\nconst event = verifyWebhook(secret, req.headers, rawBody);`}
      </CodeBlock>
    </Dialog>
  );
}

export function CreateWebhookDialog({ open, onClose, onCreated }: { open: boolean; onClose: () => void; onCreated: (w: WebhookFieldsFragment) => void }) {
  const ws = useWorkspace();
  const [url, setUrl] = useState("");
  const [description, setDescription] = useState("");
  const [events, setEvents] = useState<string[]>(["session.released", "live_view.done"]);
  const [secret, setSecret] = useState<string | null>(null);
  const create = useMutation(CreateWebhookDocument);
  const close = () => {
    setUrl("");
    setDescription("");
    setEvents(["session.released", "live_view.done"]);
    setSecret(null);
    create.reset();
    onClose();
  };
  if (secret) return <SecretDialog open={open} secret={secret} title="Webhook created" onClose={close} />;
  const toggle = (type: string) => setEvents((e) => (e.includes(type) ? e.filter((x) => x !== type) : [...e, type]));
  return (
    <Dialog
      open={open}
      onClose={close}
      title="Add webhook"
      description="Vessel POSTs each chosen event to this address, signed with a secret of its own."
      onSubmit={async () => {
        const done = await create.run({ workspace: ws.slug, url: url.trim(), events, description: description.trim() || undefined });
        if (done) {
          setSecret(done.createWebhook.secret);
          onCreated(done.createWebhook.webhook);
        }
      }}
      footer={
        <>
          <Button onClick={close}>Cancel</Button>
          <Button type="submit" variant="primary" pending={create.pending} disabled={!url.trim() || events.length === 0}>
            Add webhook
          </Button>
        </>
      }
    >
      <Field
        id="webhook-url"
        label="Endpoint URL"
        hint="https:// recommended. Private and loopback addresses are refused at delivery unless the deployment allows them."
        error={fieldError(create.error, "url")}
      >
        <input
          id="webhook-url"
          type="url"
          autoFocus
          value={url}
          maxLength={2048}
          onChange={(e) => setUrl(e.target.value)}
          placeholder="https://example.com/hooks/vessel"
        />
      </Field>
      <fieldset className="field webhook-events">
        <legend className="field-label">Events</legend>
        {webhookEvents.map((e) => (
          <label key={e.type} className="check">
            <input type="checkbox" checked={events.includes(e.type)} onChange={() => toggle(e.type)} />
            <span>
              <code>{e.type}</code> <span className="muted small">{e.hint}</span>
            </span>
          </label>
        ))}
        {fieldError(create.error, "events") ? <p className="field-error">{fieldError(create.error, "events")}</p> : null}
      </fieldset>
      <Field id="webhook-description" label="Description (optional)" error={fieldError(create.error, "description")}>
        <input id="webhook-description" value={description} maxLength={500} onChange={(e) => setDescription(e.target.value)} placeholder="Billing backend" />
      </Field>
      {create.error && !fieldError(create.error, "url", "events", "description") ? <ErrorNotice error={create.error} compact /> : null}
    </Dialog>
  );
}
