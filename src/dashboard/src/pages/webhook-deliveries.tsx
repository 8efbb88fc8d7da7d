import { RetryWebhookDeliveryDocument, WebhookDeliveriesDocument, type WebhookDeliveryFieldsFragment, type WebhookFieldsFragment } from "@gql/graphql.ts";
import { formatDateTime, formatRelative } from "../lib/format.ts";
import { useMutation, useNow, useQuery } from "../lib/hooks.ts";
import { useWorkspace } from "../lib/me.tsx";
import { Badge, Button, ErrorNotice, SkeletonRows } from "../components/ui.tsx";
import { useToast } from "../components/toasts.tsx";

type Delivery = WebhookDeliveryFieldsFragment;

const tones = { delivered: "green", pending: "amber", failed: "red", refused: "red" } as const;

/** One endpoint's delivery log, newest first: what was sent, how it went, and a retry. */
/** Re-read when its endpoint sends a test event: the page gives it a new `key`. */
export function DeliveryLog({ webhook }: { webhook: WebhookFieldsFragment }) {
  const ws = useWorkspace();
  const toast = useToast();
  const now = useNow(15_000);
  const log = useQuery(WebhookDeliveriesDocument, { workspace: ws.slug, id: webhook.id });
  const retry = useMutation(RetryWebhookDeliveryDocument);
  const items = log.data?.webhookDeliveries.items ?? [];

  const doRetry = async (d: Delivery) => {
    const done = await retry.run({ workspace: ws.slug, id: webhook.id, deliveryId: d.id });
    if (!done) return;
    log.set(
      (prev) =>
        prev && {
          webhookDeliveries: { ...prev.webhookDeliveries, items: prev.webhookDeliveries.items.map((x) => (x.id === d.id ? done.retryWebhookDelivery : x)) },
        },
    );
    toast(`Sending ${d.event} again`);
    setTimeout(() => void log.reload(), 1500);
  };

  return (
    <section className="card delivery-log" aria-labelledby="delivery-log-title">
      <div className="card-head">
        <h2 id="delivery-log-title" className="card-title">
          Deliveries to <span className="mono">{webhook.url}</span>
        </h2>
        <Button size="sm" onClick={() => void log.reload()} pending={log.loading && Boolean(log.data)}>
          Refresh
        </Button>
      </div>
      {retry.error ? <ErrorNotice error={retry.error} compact /> : null}
      {log.error && !log.data ? (
        <ErrorNotice error={log.error} onRetry={() => void log.reload()} />
      ) : log.data && items.length === 0 ? (
        <p className="muted">Nothing sent yet. Use “Send test event”, or wait for one of its events.</p>
      ) : (
        <div className="table-wrap">
          <table className="table responsive-table">
            <caption className="visually-hidden">Deliveries, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col" className="num">
                  Attempts
                </th>
                <th scope="col">Last answer</th>
                <th scope="col">Last attempt</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {!log.data ? (
                <SkeletonRows cols={6} />
              ) : (
                items.map((d) => (
                  <tr key={d.id} data-delivery-id={d.id}>
                    <td data-label="Event">
                      <code>{d.event}</code>
                      <div className="muted small mono" title="The webhook-id header, the same on every attempt">
                        {d.id}
                      </div>
                    </td>
                    <td data-label="Status">
                      <Badge tone={tones[d.status as keyof typeof tones] ?? "neutral"} dot>
                        {d.status}
                      </Badge>
                      {d.status === "pending" && d.nextAttemptAt ? <div className="muted small">next {formatRelative(d.nextAttemptAt, now)}</div> : null}
                    </td>
                    <td data-label="Attempts" className="num tabular">
                      {d.attempts}
                    </td>
                    <td data-label="Last answer" className="delivery-answer">
                      {d.lastResponseCode ? <span className="mono">HTTP {d.lastResponseCode}</span> : null}
                      {d.lastError && !(d.lastResponseCode && d.lastError === `answered ${d.lastResponseCode}`) ? (
                        <div className="muted small">{d.lastError}</div>
                      ) : null}
                      {!d.lastResponseCode && !d.lastError ? <span className="muted">—</span> : null}
                    </td>
                    <td data-label="Last attempt" className="nowrap">
                      {d.lastAttemptAt ? (
                        <time dateTime={d.lastAttemptAt} title={formatDateTime(d.lastAttemptAt)}>
                          {formatRelative(d.lastAttemptAt, now)}
                        </time>
                      ) : (
                        <span className="muted">Not yet</span>
                      )}
                    </td>
                    <td className="row-actions">
                      {d.status !== "pending" ? (
                        <Button size="sm" variant="ghost" onClick={() => void doRetry(d)} aria-label={`Retry ${d.event} ${d.id}`}>
                          Retry
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
    </section>
  );
}
