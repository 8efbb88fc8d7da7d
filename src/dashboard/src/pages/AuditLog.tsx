import { useMemo, useState } from "react";
import { ApiKeysDocument, AuditLogDocument, MembersDocument, type AuditLogQuery, type AuditLogQueryVariables } from "@gql/graphql.ts";
import { asApiError, request, type ApiError } from "../lib/api.ts";
import { download, toCsv } from "../lib/browser.ts";
import { formatCompactDateTime, formatDateTime } from "../lib/format.ts";
import { useQuery, useTitle } from "../lib/hooks.ts";
import { useMe, useWorkspace } from "../lib/me.tsx";
import { setSearch, useLocation } from "../lib/router.tsx";
import { Badge, Button, Denied, EmptyState, ErrorNotice, PageHeader, SkeletonRows, Spinner } from "../components/ui.tsx";
import { AuditIcon, DownloadIcon } from "../components/icons.tsx";
import { toIso, statusTone } from "./audit-log-filters.ts";
import { AuditFilterForm, type AuditFilters } from "./audit-log-filter-form.tsx";

type Entry = AuditLogQuery["auditLog"]["items"][number];

const PAGE = 50;
/** CSV exports read at most this many entries (100 per request). */
const EXPORT_MAX = 10_000;

export function AuditLogPage() {
  const ws = useWorkspace();
  useTitle("Audit log");
  if (!ws.canAdmin) {
    return (
      <>
        <PageHeader title="Audit log" />
        <Denied detail="The audit log names other people’s actions and addresses, so only owners and admins read it." role={ws.role} />
      </>
    );
  }
  return <AuditLog />;
}

function AuditLog() {
  const ws = useWorkspace();
  const { me } = useMe();
  const { search } = useLocation();
  const filters: AuditFilters = {
    keyPrefix: search.get("key") ?? "",
    actorUserId: search.get("actor") ?? "",
    action: search.get("action") ?? "",
    target: search.get("target") ?? "",
    since: search.get("since") ?? "",
    until: search.get("until") ?? "",
  };
  // Browsing makes many reads; the default view leaves them out so the changes stand out (`?view=all` shows every call).
  const changesOnly = search.get("view") !== "all";
  const variables: AuditLogQueryVariables = {
    workspace: ws.slug,
    keyPrefix: filters.keyPrefix || null,
    actorUserId: filters.actorUserId || null,
    action: filters.action || null,
    target: filters.target || null,
    since: toIso(filters.since) ?? null,
    until: toIso(filters.until) ?? null,
    changesOnly: changesOnly || null,
    limit: PAGE,
  };
  const log = useQuery(AuditLogDocument, variables);
  const keys = useQuery(ApiKeysDocument, { workspace: ws.slug });
  const members = useQuery(MembersDocument, { workspace: ws.slug });
  const [more, setMore] = useState(false);
  const [moreError, setMoreError] = useState<ApiError | undefined>();
  const [exporting, setExporting] = useState<number | null>(null);
  const [exportError, setExportError] = useState<ApiError | undefined>();

  const emails = useMemo(() => new Map((members.data?.members ?? []).map((m) => [m.userId, m.email])), [members.data]);
  const keyLabels = useMemo(() => new Map((keys.data?.apiKeys ?? []).map((k) => [k.prefix, k.label])), [keys.data]);
  const actor = (e: Entry) => (e.actorUserId ? (e.actorUserId === me.id ? `${me.email} (you)` : (emails.get(e.actorUserId) ?? e.actorUserId)) : "");

  const anyFilter = Object.values(filters).some(Boolean);

  const loadMore = async () => {
    const cursor = log.data?.auditLog.nextCursor;
    if (!cursor) return;
    setMore(true);
    setMoreError(undefined);
    try {
      const next = await request(AuditLogDocument, { ...variables, cursor });
      log.set((prev) => prev && { auditLog: { ...next.auditLog, items: [...prev.auditLog.items, ...next.auditLog.items] } });
    } catch (err) {
      setMoreError(asApiError(err));
    } finally {
      setMore(false);
    }
  };

  const exportCsv = async () => {
    setExporting(0);
    setExportError(undefined);
    try {
      const rows: Entry[] = [];
      let cursor: string | null | undefined;
      do {
        const page = await request(AuditLogDocument, { ...variables, limit: 100, cursor: cursor ?? null });
        rows.push(...page.auditLog.items);
        cursor = page.auditLog.hasMore ? page.auditLog.nextCursor : null;
        setExporting(rows.length);
      } while (cursor && rows.length < EXPORT_MAX);
      const csv = toCsv(
        ["time", "action", "key_prefix", "key_label", "actor_user_id", "actor_email", "target", "http_status", "ip", "request_id", "client_request_id"],
        rows.map((e) => [
          e.createdAt,
          e.action,
          e.keyPrefix,
          e.keyPrefix ? keyLabels.get(e.keyPrefix) : "",
          e.actorUserId,
          e.actorUserId ? emails.get(e.actorUserId) : "",
          e.target,
          e.httpStatus,
          e.ip,
          e.requestId,
          e.clientRequestId,
        ]),
      );
      download(`audit-log-${ws.slug}-${new Date().toISOString().slice(0, 19).replace(/[:T]/g, "-")}.csv`, csv, "text/csv;charset=utf-8");
    } catch (err) {
      setExportError(asApiError(err));
    } finally {
      setExporting(null);
    }
  };

  const items = log.data?.auditLog.items ?? [];

  return (
    <>
      <PageHeader
        title="Audit log"
        description="Every authenticated call in this workspace, newest first: API keys by their prefix, people by their address."
        actions={
          <Button onClick={() => void exportCsv()} pending={exporting !== null} disabled={!log.data || items.length === 0}>
            <DownloadIcon /> {exporting !== null ? `Exporting ${exporting}…` : "Export CSV"}
          </Button>
        }
      />

      <div className="segmented audit-view" role="group" aria-label="Which entries">
        <button type="button" className={`segment${changesOnly ? " active" : ""}`} aria-pressed={changesOnly} onClick={() => setSearch({ view: undefined })}>
          Changes
        </button>
        <button type="button" className={`segment${changesOnly ? "" : " active"}`} aria-pressed={!changesOnly} onClick={() => setSearch({ view: "all" })}>
          All calls
        </button>
      </div>

      <AuditFilterForm filters={filters} apiKeys={keys.data?.apiKeys ?? []} members={members.data?.members ?? []} emails={emails} />

      {exportError ? <ErrorNotice error={exportError} compact /> : null}
      {log.error && !log.data ? (
        <ErrorNotice error={log.error} onRetry={() => void log.reload()} />
      ) : log.data && items.length === 0 ? (
        <EmptyState icon={<AuditIcon />} title={anyFilter ? "No entries match these filters" : "No activity yet"}>
          <p>
            {anyFilter ? "Widen the time range or clear a filter." : "Calls made with this workspace’s keys, and changes made here, appear as they happen."}
          </p>
        </EmptyState>
      ) : (
        <div className="table-wrap">
          <table className="table responsive-table audit-table">
            <caption className="visually-hidden">Audit entries, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Actor</th>
                <th scope="col">Action</th>
                <th scope="col">Target</th>
                <th scope="col" className="num">
                  Status
                </th>
                <th scope="col">IP</th>
              </tr>
            </thead>
            <tbody>
              {!log.data ? (
                <SkeletonRows cols={6} rows={6} />
              ) : (
                items.map((e) => (
                  <tr key={e.id} data-audit-action={e.action} data-key-prefix={e.keyPrefix ?? ""}>
                    <td data-label="Time" className="tabular nowrap">
                      <time dateTime={e.createdAt} title={formatDateTime(e.createdAt)}>
                        {formatCompactDateTime(e.createdAt)}
                      </time>
                    </td>
                    <td data-label="Actor" className="actor-cell" title={e.keyPrefix ?? actor(e)}>
                      {e.keyPrefix ? (
                        <span className="actor-key">
                          <code>{e.keyPrefix}</code>
                          {keyLabels.get(e.keyPrefix) ? <span className="muted small block">{keyLabels.get(e.keyPrefix)}</span> : null}
                        </span>
                      ) : (
                        actor(e) || <span className="muted">—</span>
                      )}
                    </td>
                    <td data-label="Action">
                      <code>{e.action}</code>
                    </td>
                    <td data-label="Target" className="mono small target-cell" title={e.target ?? undefined}>
                      {e.target ?? <span className="muted">—</span>}
                    </td>
                    <td data-label="Status" className="num">
                      <Badge tone={statusTone(e.httpStatus)}>{e.httpStatus}</Badge>
                    </td>
                    <td data-label="IP" className="mono small">
                      {e.ip ?? "—"}
                    </td>
                  </tr>
                ))
              )}
            </tbody>
          </table>
        </div>
      )}
      {moreError ? <ErrorNotice error={moreError} compact onRetry={() => void loadMore()} /> : null}
      <div className="load-more">
        {log.data ? (
          <span className="muted small" aria-live="polite">
            {items.length} {items.length === 1 ? "entry" : "entries"} shown{log.data.auditLog.hasMore ? "" : " (all)"}
          </span>
        ) : null}
        {log.data?.auditLog.hasMore ? (
          <Button onClick={() => void loadMore()} pending={more}>
            Load older entries
          </Button>
        ) : null}
        {log.loading && log.data ? <Spinner label="Refreshing" /> : null}
      </div>
    </>
  );
}
