import { useEffect, useMemo, useState } from "react";
import { SessionsDocument, WorkspaceSessionsDocument, type SessionStatus, type SessionsQuery } from "@gql/graphql.ts";
import { asApiError, request, type ApiError } from "../lib/api.ts";
import { useNow, useQuery, useTitle } from "../lib/hooks.ts";
import { onReconnect, subscribe } from "../lib/live.ts";
import { useWorkspace } from "../lib/me.tsx";
import { METADATA_PARAM, formatPair, matchesAll, metadataFilters, setMetadataFilters, withFilter, type MetadataPair } from "../lib/metadata.ts";
import { setSearch, useLocation } from "../lib/router.tsx";
import { LiveDot } from "../components/Shell.tsx";
import { statusOptions, type SessionRow } from "../components/session-bits.tsx";
import { Button, EmptyState, ErrorNotice, Notice, PageHeader, SkeletonRows } from "../components/ui.tsx";
import { PlusIcon, SessionsIcon } from "../components/icons.tsx";
import { StartSessionCurl } from "../components/start-session-curl.tsx";
import { NewSessionDialog } from "./NewSessionDialog.tsx";
import { SessionListRow } from "./session-row.tsx";
// Its selectors outweigh narrow.css's generic phone cards, whatever order the bundle puts them in.
import "../styles/sessions-list.css";
import { ActiveMetadataFilters, MetadataFilterInput } from "./sessions-metadata-filter.tsx";

const PAGE = 50;

type Page = SessionsQuery["sessions"];

/** Applies one live change to the list: replaced in place, added on top when new, dropped when it left the filter. */
function upsert(page: Page, s: SessionRow, status: SessionStatus | "", filters: MetadataPair[]): Page {
  const at = page.items.findIndex((x) => x.id === s.id);
  const fits = (!status || s.status === status) && matchesAll(s.metadata, filters);
  if (at >= 0) {
    // A live change carries the row, not the page it shows: that is kept from the list.
    const items = fits ? page.items.map((x, i) => (i === at ? { ...x, ...s } : x)) : page.items.filter((_, i) => i !== at);
    return { ...page, items };
  }
  return fits ? { ...page, items: [{ currentPage: null, ...s }, ...page.items] } : page;
}

const statuses: readonly SessionStatus[] = ["PENDING", "RUNNING", "REQUEST_RELEASE", "RELEASED", "TIMED_OUT", "FAILED"];

/**
 * The status filter as typed into the address, in any case (`?status=released`, `timed-out`); one
 * that names no status filters nothing and is said so, rather than sent to the server to refuse.
 */
function statusFromAddress(asked: string): SessionStatus | "" {
  const folded = asked
    .trim()
    .toUpperCase()
    .replace(/[\s-]+/g, "_");
  return statuses.find((s) => s === folded) ?? "";
}

export function SessionsPage() {
  const ws = useWorkspace();
  const { search } = useLocation();
  const asked = search.get("status") ?? "";
  const status = statusFromAddress(asked);
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
    const text = (s: (typeof all)[number]) =>
      [s.id, s.profileId, s.profileLabel, s.currentPage?.title, s.currentPage?.url, s.createdBy?.email, s.createdBy?.keyPrefix].join(" ").toLowerCase();
    return q ? all.filter((s) => text(s).includes(q)) : all;
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

      {asked && !status ? (
        <Notice tone="warning" title={`No status is called “${asked}”`}>
          {`Showing every session instead. The list filters by ${statusOptions
            .filter((o) => o.value)
            .map((o) => o.label.toLowerCase())
            .join(", ")}. `}
          <Button size="sm" onClick={() => setSearch({ status: undefined })}>
            Clear the filter
          </Button>
        </Notice>
      ) : null}

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
              <span className="visually-hidden">Find a session by id, page, creator or profile</span>
              <input
                type="search"
                placeholder="Find a session…"
                title="By id, page title or address, creator or profile"
                value={filter}
                onChange={(e) => setSearch({ q: e.target.value || undefined })}
              />
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
          <StartSessionCurl />
        </EmptyState>
      ) : (
        <div className="table-wrap">
          <table className="table responsive-table sessions-table">
            <caption className="visually-hidden">Sessions, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Session</th>
                <th scope="col">Page</th>
                <th scope="col">Status</th>
                <th scope="col">Started</th>
                <th scope="col">Created by</th>
                <th scope="col">Profile</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {!list.data ? (
                <SkeletonRows cols={7} />
              ) : items.length === 0 ? (
                <tr>
                  <td colSpan={7} className="table-empty">
                    No {status ? statusOptions.find((o) => o.value === status)?.label.toLowerCase() : ""} sessions
                    {filter ? <> matching “{filter}”</> : null}
                    {metadata ? <> with {metadata.map(formatPair).join(" and ")}</> : null}.{" "}
                    <button
                      type="button"
                      className="link-btn"
                      onClick={() => {
                        setSearch({ status: undefined, q: undefined });
                        setMetadataFilters([]);
                      }}
                    >
                      Show all sessions
                    </button>
                  </td>
                </tr>
              ) : (
                items.map((s) => <SessionListRow key={s.id} s={s} slug={ws.slug} now={now} onPick={(p) => setMetadataFilters(withFilter(filters, p))} />)
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
