import { useEffect, useMemo, useRef, useState, type FormEvent } from "react";
import {
  CreateSessionDocument, ProfilesDocument, RegionsDocument, SessionsDocument, WorkspaceSessionsDocument,
  type SessionStatus, type SessionsQuery,
} from "@gql/graphql.ts";
import { asApiError, request, type ApiError } from "../lib/api.ts";
import { uuid } from "../lib/browser.ts";
import { formatBytes, formatDateTime, formatDuration, formatRelative } from "../lib/format.ts";
import { useMutation, useNow, useQuery, useTitle } from "../lib/hooks.ts";
import { onReconnect, subscribe } from "../lib/live.ts";
import { useWorkspace, wsPath } from "../lib/me.tsx";
import { Link, navigate, setSearch, useLocation } from "../lib/router.tsx";
import { LiveDot } from "../components/Shell.tsx";
import { isLive, shortId, statusOptions, StatusBadge, type SessionRow } from "../components/session-bits.tsx";
import { Button, Dialog, EmptyState, ErrorNotice, Field, Notice, PageHeader, SkeletonRows, fieldError, useToast } from "../components/ui.tsx";
import { PlusIcon, SessionsIcon } from "../components/icons.tsx";

const PAGE = 50;

type Page = SessionsQuery["sessions"];

/** Applies one live change to the list: replaced in place, added on top when new, dropped when it left the filter. */
function upsert(page: Page, s: SessionRow, status: SessionStatus | ""): Page {
  const at = page.items.findIndex((x) => x.id === s.id);
  const fits = !status || s.status === status;
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
  const [creating, setCreating] = useState(search.get("new") === "1");
  const [moreError, setMoreError] = useState<ApiError | undefined>();
  const [loadingMore, setLoadingMore] = useState(false);
  const now = useNow(1000);
  useTitle("Sessions");

  const list = useQuery(SessionsDocument, { workspace: ws.slug, status: status || null, limit: PAGE });
  const { set, reload } = list;

  // Status changes arrive over the socket: no polling, no reload.
  useEffect(
    () =>
      subscribe(
        WorkspaceSessionsDocument,
        { workspace: ws.slug },
        { next: (d) => set((prev) => (prev ? { sessions: upsert(prev.sessions, d.workspaceSessions, status) } : prev)) },
      ),
    [ws.slug, status, set],
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
      const next = await request(SessionsDocument, { workspace: ws.slug, status: status || null, limit: PAGE, cursor });
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
  const noneAtAll = list.data && list.data.sessions.items.length === 0 && !status;

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
          <label className="search">
            <span className="visually-hidden">Find a session by id or profile</span>
            <input type="search" placeholder="Find by session or profile id" value={filter} onChange={(e) => setSearch({ q: e.target.value || undefined })} />
          </label>
        </div>
      )}

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
                    {filter ? <> matching “{filter}”</> : null}.{" "}
                    <button type="button" className="link-btn" onClick={() => setSearch({ status: undefined, q: undefined })}>
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

function NewSessionDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  return (
    <Dialog open={open} onClose={onClose} title="New session" description="A fresh Chromium in its own process. It ends when released, at its time limit, or when idle." wide>
      {open ? <NewSessionForm onClose={onClose} /> : null}
    </Dialog>
  );
}

function NewSessionForm({ onClose }: { onClose: () => void }) {
  const ws = useWorkspace();
  const toast = useToast();
  const regions = useQuery(RegionsDocument, {});
  const profiles = useQuery(ProfilesDocument, { workspace: ws.slug, limit: 100 });
  const create = useMutation(CreateSessionDocument);
  const [region, setRegion] = useState("");
  const [profileId, setProfileId] = useState("");
  const [saveBack, setSaveBack] = useState(false);
  const [interactive, setInteractive] = useState(true);
  const [instructions, setInstructions] = useState("");
  const [minutes, setMinutes] = useState("30");
  const [idleMinutes, setIdleMinutes] = useState("5");
  const regionList = regions.data?.health.regions ?? [];
  const chosenRegion = region || regionList[0] || "";

  const input = {
    region: chosenRegion,
    profileId: profileId || null,
    saveProfileOnRelease: profileId ? saveBack : null,
    liveViewInteractive: interactive,
    liveViewInstructions: instructions.trim() || null,
    timeoutSeconds: Math.round(Number(minutes) * 60) || null,
    idleTimeoutSeconds: Math.round(Number(idleMinutes) * 60) || null,
  };
  // One Idempotency-Key per distinct request: a retry of the same form cannot start a second browser.
  const key = useRef({ input: "", key: uuid() });
  const fingerprint = JSON.stringify(input);
  if (key.current.input !== fingerprint) key.current = { input: fingerprint, key: uuid() };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const made = await create.run({ workspace: ws.slug, idempotencyKey: key.current.key, input });
    if (!made) return;
    toast(`Session ${shortId(made.createSession.id)} started`);
    onClose();
    navigate(wsPath(ws.slug, `sessions/${made.createSession.id}`));
  };

  const err = create.error;
  return (
    <form onSubmit={submit} noValidate className="form-grid" aria-label="New session">
      <Field id="ns-region" label="Region" error={fieldError(err, "region")}>
        <select id="ns-region" value={chosenRegion} onChange={(e) => setRegion(e.target.value)} disabled={!regions.data}>
          {regionList.length === 0 ? <option value="">Loading regions…</option> : null}
          {regionList.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
      </Field>
      <Field id="ns-profile" label="Start from a profile" hint="A saved login: its cookies and storage are in place before the first page loads." error={fieldError(err, "profile_id")}>
        <select id="ns-profile" value={profileId} onChange={(e) => setProfileId(e.target.value)} aria-describedby="ns-profile-hint">
          <option value="">None: a fresh browser</option>
          {(profiles.data?.profiles.items ?? []).map((p) => (
            <option key={p.profileId} value={p.profileId}>
              {p.label} ({formatBytes(p.sizeBytes)})
            </option>
          ))}
        </select>
      </Field>
      <label className={`check span-2${profileId ? "" : " disabled"}`}>
        <input type="checkbox" checked={saveBack && !!profileId} disabled={!profileId} onChange={(e) => setSaveBack(e.target.checked)} />
        <span>
          Save the login back into this profile when the session is released
          <span className="field-hint block">Keeps the profile current after someone logs in through the live view.</span>
        </span>
      </label>
      <fieldset className="span-2 radio-group">
        <legend className="field-label">Live view</legend>
        <label className="radio">
          <input type="radio" name="ns-lv" checked={interactive} onChange={() => setInteractive(true)} />
          <span>
            Interactive <span className="field-hint block">The person watching can click and type (CAPTCHAs, MFA, signatures).</span>
          </span>
        </label>
        <label className="radio">
          <input type="radio" name="ns-lv" checked={!interactive} onChange={() => setInteractive(false)} />
          <span>
            View only <span className="field-hint block">Watch without touching; input is dropped on the server.</span>
          </span>
        </label>
      </fieldset>
      <div className="span-2">
        <Field id="ns-instructions" label="Instructions for the person in the live view" hint="Optional. Shown above the browser, with a Done button." error={fieldError(err, "live_view.instructions", "live_view")}>
          <textarea
            id="ns-instructions"
            rows={3}
            maxLength={2000}
            value={instructions}
            onChange={(e) => setInstructions(e.target.value)}
            placeholder="Log in to the supplier portal, then click Done."
            aria-describedby="ns-instructions-hint"
          />
        </Field>
      </div>
      <Field id="ns-timeout" label="Time limit (minutes)" hint="At most 30." error={fieldError(err, "timeout_seconds")}>
        <input id="ns-timeout" type="number" min={1} max={30} step={1} inputMode="numeric" value={minutes} onChange={(e) => setMinutes(e.target.value)} aria-describedby="ns-timeout-hint" />
      </Field>
      <Field id="ns-idle" label="Idle timeout (minutes)" hint="Released after this long with no automation client or viewer." error={fieldError(err, "idle_timeout_seconds")}>
        <input id="ns-idle" type="number" min={1} max={30} step={1} inputMode="numeric" value={idleMinutes} onChange={(e) => setIdleMinutes(e.target.value)} aria-describedby="ns-idle-hint" />
      </Field>
      {err ? (
        <div className="span-2">
          <ErrorNotice error={err} compact />
          {err.code === "INSUFFICIENT_CAPACITY" ? <Notice>Every browser is busy. Try again in a few seconds; nothing was started.</Notice> : null}
          {err.code === "WORKSPACE_SESSION_LIMIT" ? <Notice>Release a running session of this workspace, then try again; nothing was started.</Notice> : null}
        </div>
      ) : null}
      {regions.error ? (
        <div className="span-2">
          <ErrorNotice error={regions.error} compact />
        </div>
      ) : null}
      <div className="dialog-footer span-2">
        <Button onClick={onClose}>Cancel</Button>
        <Button type="submit" variant="primary" pending={create.pending} disabled={!chosenRegion}>
          Start session
        </Button>
      </div>
    </form>
  );
}
