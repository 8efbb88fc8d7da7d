import type { ApiError } from "../lib/api.ts";
import { formatDateTime, formatDuration, formatTime } from "../lib/format.ts";
import { useWorkspace, wsPath } from "../lib/me.tsx";
import { Link } from "../lib/router.tsx";
import { describeEvent, endReasonText, shortId, StatusBadge } from "../components/session-bits.tsx";
import { CopyButton, ErrorNotice } from "../components/ui.tsx";
import { CodeBlock } from "../components/code-block.tsx";
import { safeJson, type TimelineEvent } from "./session-timeline.ts";
import type { SessionFieldsFragment, SessionOptionsFragment } from "@gql/graphql.ts";
import { SessionOptionRows } from "./session-options-rows.tsx";

// The parts of a session's page: where it sits, its timeline, its details, and how to connect to it.

export function SessionTimeline({
  events,
  error: eventsError,
  feed,
}: {
  events: TimelineEvent[];
  error: ApiError | undefined;
  feed: "live" | "ended" | "offline";
}) {
  return (
    <section className="card" aria-labelledby="tl-title">
      <div className="card-head">
        <h2 id="tl-title" className="card-title">
          Timeline
        </h2>
        <span className="muted small" aria-live="polite">
          {feed === "live" ? "Live" : feed === "ended" ? "Complete" : "Not live"}
        </span>
      </div>
      {eventsError && events.length === 0 ? <ErrorNotice error={eventsError} compact /> : null}
      {events.length === 0 && !eventsError ? <p className="muted pad">Waiting for events…</p> : null}
      <ol className="timeline" aria-label="Session events, oldest first">
        {events.map((e) => {
          const data = safeJson(e.data);
          const d = describeEvent(e.type, data);
          return (
            <li key={e.id} className={`timeline-item tone-${d.tone}`} data-event-type={e.type}>
              <span className="timeline-dot" aria-hidden="true" />
              <div className="timeline-body">
                <div className="timeline-line">
                  <span className="timeline-title">{d.title}</span>
                  <time className="muted small tabular" dateTime={e.createdAt} title={formatDateTime(e.createdAt)}>
                    {formatTime(e.createdAt)}
                  </time>
                </div>
                {d.detail ? <p className="timeline-detail">{d.detail}</p> : null}
                {Object.keys(data).length > 0 ? (
                  <details className="timeline-data">
                    <summary>Details</summary>
                    <pre>{JSON.stringify(data, null, 2)}</pre>
                  </details>
                ) : null}
              </div>
            </li>
          );
        })}
      </ol>
    </section>
  );
}

export function SessionDetails({ session: s, live }: { session: SessionFieldsFragment & SessionOptionsFragment; live: boolean }) {
  const ws = useWorkspace();
  return (
    <section className="card" aria-labelledby="sum-title">
      <h2 id="sum-title" className="card-title">
        Details
      </h2>
      <dl className="props">
        <div>
          <dt>Status</dt>
          <dd>
            <StatusBadge status={s.status} />
          </dd>
        </div>
        {s.endReason ? (
          <div>
            <dt>End reason</dt>
            <dd>{endReasonText[s.endReason]}</dd>
          </div>
        ) : null}
        <div>
          <dt>Region</dt>
          <dd>{s.region}</dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>{formatDateTime(s.createdAt)}</dd>
        </div>
        <div>
          <dt>Started</dt>
          <dd>{formatDateTime(s.startedAt)}</dd>
        </div>
        {live ? (
          <div>
            <dt>Ends by</dt>
            <dd>{formatDateTime(s.expiresAt)}</dd>
          </div>
        ) : (
          <div>
            <dt>Ended</dt>
            <dd>{formatDateTime(s.endedAt)}</dd>
          </div>
        )}
        <div>
          <dt>Time limit</dt>
          <dd>{formatDuration(s.timeoutSeconds * 1000)}</dd>
        </div>
        <div>
          <dt>Idle timeout</dt>
          <dd>{s.idleTimeoutSeconds ? formatDuration(s.idleTimeoutSeconds * 1000) : "—"}</dd>
        </div>
        <div>
          <dt>Keeps</dt>
          <dd>{[s.logs ? "Logs" : "", s.recording ? "Video" : ""].filter(Boolean).join(" and ") || "Nothing"}</dd>
        </div>
        <div>
          <dt>Profile</dt>
          <dd>
            {s.profileId ? (
              <Link to={wsPath(ws.slug, "profiles")} className="mono">
                {s.profileId}
              </Link>
            ) : (
              "None"
            )}
          </dd>
        </div>
        <SessionOptionRows metadata={s.metadata} options={s} />
      </dl>
    </section>
  );
}

export function ConnectCard({ connectUrl }: { connectUrl: string }) {
  return (
    <section className="card" aria-labelledby="connect-title">
      <h2 id="connect-title" className="card-title">
        Connect your code
      </h2>
      <p className="muted small">Any CDP client works. The address carries a token valid until the session ends: treat it like a password.</p>
      <div className="secret-row">
        <input className="mono" readOnly value={connectUrl} aria-label="CDP connect address" onFocus={(e) => e.currentTarget.select()} />
        <CopyButton text={connectUrl} />
      </div>
      <CodeBlock label="Playwright connect example" small>{`const browser = await chromium.connectOverCDP(connectUrl);`}</CodeBlock>
    </section>
  );
}

export function Breadcrumb({ id }: { id: string }) {
  const ws = useWorkspace();
  return (
    <nav className="breadcrumb" aria-label="Breadcrumb">
      <Link to={wsPath(ws.slug, "sessions")}>Sessions</Link>
      <span aria-hidden="true">/</span>
      <span aria-current="page" className="mono">
        {shortId(id)}
      </span>
    </nav>
  );
}
