import { useEffect, useMemo, useState } from "react";
import { SessionsDocument, WorkspaceSessionsDocument, type SessionStatus, type SessionsQuery } from "@gql/graphql.ts";
import { asApiError, request, type ApiError } from "../lib/api.ts";
import { formatDateTime, formatDuration, formatRelative } from "../lib/format.ts";
import { useNow, useQuery, useTitle } from "../lib/hooks.ts";
import { onReconnect, subscribe } from "../lib/live.ts";
import { useWorkspace, wsPath } from "../lib/me.tsx";
import { METADATA_PARAM, formatPair, matchesAll, metadataFilters, setMetadataFilters, withFilter, type MetadataPair } from "../lib/metadata.ts";
import { Link, navigate, setSearch, useLocation } from "../lib/router.tsx";
import { LiveDot } from "../components/Shell.tsx";
import { isLive, shortId, statusOptions, StatusBadge, type SessionRow } from "../components/session-bits.tsx";
import { Button, EmptyState, ErrorNotice, PageHeader, SkeletonRows } from "../components/ui.tsx";
import { PlusIcon, SessionsIcon } from "../components/icons.tsx";
import { MetadataChips } from "../components/metadata-chips.tsx";
import { NewSessionDialog } from "./NewSessionDialog.tsx";
import { ActiveMetadataFilters, MetadataFilterInput } from "./sessions-metadata-filter.tsx";

const PAGE = 50;

type Page = SessionsQuery["sessions"];

/** Applies one live change to the list: replaced in place, added on top when new, dropped when it left the filter. */
function upsert(page: Page, s: SessionRow, status: SessionStatus | "", filters: MetadataPair[]): Page {
  const at = page.items.findIndex((x) => x.id === s.id);
  const fits = (!status || s.status === status) && matchesAll(s.metadata, filters);
  if (at >= 0) {
    const items = fits ? page.items.map((x, i) => (i === at ? s : x)) : page.items.filter((_, i) => i !== at);
    return { ...page, items };
  }
  return fits ? { ...page, items: [s, ...page.items] } : page;
}

export function SessionsPage() {
  const ws = useWorkspace();
  const { search } = useLocation();
  const status = (search.get("status") ?? "") as SessionStatus | "";
  const filter = search.get("q") ?? "";
  // One array per distinct set of filters (the live subscription restarts only when they change).
  const metaParams = search.getAll(METADATA_PARAM).join("\n");
  const filters = useMemo(() => metadataFilters(metaParams ? metaParams.split("\n") : []), [metaParams]);
  const metadata = filters.length > 0 ? filters : null;
  const [creating, setCreating] = useState(search.get("new") === "1");
  const [moreError, setMoreError] = useState<ApiError | undefined>();
  const [loadingMore, setLoadingMore] = useState(false);
  const now = useNow(1000);
  useTitle("Sessions");

  const list = useQuery(SessionsDocument, { workspace: ws.slug, status: status || null, metadata, limit: PAGE });
  const { set, reload } = list;

  // Status changes arrive over the socket: no polling, no reload.
  useEffect(
    () =>
      subscribe(
        WorkspaceSessionsDocument,
        { workspace: ws.slug },
        { next: (d) => set((prev) => (prev ? { sessions: upsert(prev.sessions, d.workspaceSessions, status, filters) } : prev)) },
      ),
    [ws.slug, status, filters, set],
  );
  useEffect(() => onReconnect(() => void reload()), [reload]);

  const items = useMemo(() => {
    const all = list.data?.sessions.items ?? [];
    const q = filter.trim().toLowerCase();
    return q ? all.filter((s) => s.id.toLowerCase().includes(q) || (s.profileId ?? "").toLowerCase().includes(q)) : all;
  }, [list.data, filter]);

  const loadMore = async () => {
    const cursor = list.data?.sessions.nextCursor;
    if (!cursor) return;
    setLoadingMore(true);
    setMoreError(undefined);
    try {
      const next = await request(SessionsDocument, { workspace: ws.slug, status: status || null, metadata, limit: PAGE, cursor });
      set((prev) =>
        prev
          ? {
              sessions: {
                items: [...prev.sessions.items, ...next.sessions.items.filter((n) => !prev.sessions.items.some((p) => p.id === n.id))],
                nextCursor: next.sessions.nextCursor,
                hasMore: next.sessions.hasMore,
              },
            }
          : prev,
      );
    } catch (err) {
      setMoreError(asApiError(err));
    } finally {
      setLoadingMore(false);
    }
  };

  const running = (list.data?.sessions.items ?? []).filter((s) => s.status === "RUNNING").length;
  const noneAtAll = list.data && list.data.sessions.items.length === 0 && !status && !metadata;

  return (
    <>
      <PageHeader
        title="Sessions"
        description={
          <>
            Remote Chromium sessions in {ws.name}. <LiveDot withLabel />
          </>
        }
        actions={
          <Button variant="primary" onClick={() => setCreating(true)}>
            <PlusIcon /> New session
          </Button>
        }
      />

      {noneAtAll ? null : (
        <div className="toolbar" role="search">
          <div className="segmented" role="group" aria-label="Filter by status">
            {statusOptions.map((o) => (
              <button
                key={o.value}
                type="button"
                className={`segment${status === o.value ? " active" : ""}`}
                aria-pressed={status === o.value}
                onClick={() => setSearch({ status: o.value || undefined })}
              >
                {o.label}
                {o.value === "RUNNING" && status !== "RUNNING" && running > 0 ? <span className="segment-count">{running}</span> : null}
              </button>
            ))}
          </div>
          <div className="toolbar-filters">
            <label className="search">
              <span className="visually-hidden">Find a session by id or profile</span>
              <input type="search" placeholder="Find by session or profile id" value={filter} onChange={(e) => setSearch({ q: e.target.value || undefined })} />
            </label>
            <MetadataFilterInput filters={filters} />
          </div>
        </div>
      )}
      <ActiveMetadataFilters filters={filters} />

      {list.error && !list.data ? (
        <ErrorNotice error={list.error} onRetry={() => void reload()} />
      ) : noneAtAll ? (
        <EmptyState
          icon={<SessionsIcon />}
          title="No sessions yet"
          action={
            <Button variant="primary" onClick={() => setCreating(true)}>
              <PlusIcon /> Start a session
            </Button>
          }
        >
          <p>Start one here to try the live view, or from your code with an API key:</p>
          <pre className="code-block">
            <code>{`curl -X POST ${location.origin}/v1/sessions \\
  -H "Authorization: Bearer $VESSEL_API_KEY" \\
  -H "Idempotency-Key: $(uuidgen)" \\
  -H "content-type: application/json" \\
  -d '{"region": "us-east1"}'`}</code>
          </pre>
        </EmptyState>
      ) : (
        <div className="table-wrap">
          <table className="table responsive-table">
            <caption className="visually-hidden">Sessions, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Session</th>
                <th scope="col">Status</th>
                <th scope="col">Started</th>
                <th scope="col">Duration</th>
                <th scope="col">Region</th>
                <th scope="col">Live view</th>
              </tr>
            </thead>
            <tbody>
              {!list.data ? (
                <SkeletonRows cols={6} />
              ) : items.length === 0 ? (
                <tr>
                  <td colSpan={6} className="table-empty">
                    No {status ? statusOptions.find((o) => o.value === status)?.label.toLowerCase() : ""} sessions
                    {filter ? <> matching “{filter}”</> : null}
                    {metadata ? <> with {metadata.map(formatPair).join(" and ")}</> : null}.{" "}
                    <button type="button" className="link-btn" onClick={() => {
                      setSearch({ status: undefined, q: undefined });
                      setMetadataFilters([]);
                    }}>
                      Show all sessions
                    </button>
                  </td>
                </tr>
              ) : (
                items.map((s) => (
                  <tr key={s.id} className="row-link" data-session-id={s.id} onClick={(e) => {
                    if ((e.target as HTMLElement).closest("a, button")) return;
                    navigate(wsPath(ws.slug, `sessions/${s.id}`));
                  }}>
                    <td data-label="Session">
                      <Link to={wsPath(ws.slug, `sessions/${s.id}`)} className="mono strong" title={s.id}>
                        <span className="id-full">{s.id}</span>
                        <span className="id-short">{shortId(s.id)}</span>
                      </Link>
                      {s.profileId ? <div className="muted small">from profile {shortId(s.profileId)}</div> : null}
                      <MetadataChips entries={s.metadata} max={4} onPick={(p) => setMetadataFilters(withFilter(filters, p))} />
                    </td>
                    <td data-label="Status">
                      <StatusBadge status={s.status} />
                    </td>
                    <td data-label="Started">
                      <time dateTime={s.startedAt ?? s.createdAt} title={formatDateTime(s.startedAt ?? s.createdAt)}>
                        {formatRelative(s.startedAt ?? s.createdAt, now)}
                      </time>
                    </td>
                    <td data-label="Duration" className="tabular">
                      {isLive(s.status) ? (
                        <span title={`Ends by ${formatDateTime(s.expiresAt)}`}>
                          {formatDuration(now - Date.parse(s.startedAt ?? s.createdAt))}
                          <span className="muted small"> · {formatDuration(Date.parse(s.expiresAt) - now)} left</span>
                        </span>
                      ) : s.endedAt ? (
                        formatDuration(Date.parse(s.endedAt) - Date.parse(s.startedAt ?? s.createdAt))
                      ) : (
                        "—"
                      )}
                    </td>
                    <td data-label="Region">{s.region}</td>
                    <td data-label="Live view">
                      {s.liveViewInteractive ? "Interactive" : "View only"}
                      {s.liveViewViewers > 0 ? <span className="muted small"> · {s.liveViewViewers} watching</span> : null}
                    </td>
                  </tr>
                ))
              )}
            </tbody>
          </table>
        </div>
      )}
      {list.error && list.data ? <ErrorNotice error={list.error} compact onRetry={() => void reload()} /> : null}
      {moreError ? <ErrorNotice error={moreError} compact onRetry={() => void loadMore()} /> : null}
      {list.data?.sessions.hasMore ? (
        <div className="load-more">
          <Button onClick={() => void loadMore()} pending={loadingMore}>
            Load older sessions
          </Button>
        </div>
      ) : null}

      <NewSessionDialog open={creating} onClose={() => setCreating(false)} />
    </>
  );
}
