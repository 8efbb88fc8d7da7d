import { useEffect, useRef, useState } from "react";
import { SessionLogsDocument, SessionLogsFeedDocument } from "@gql/graphql.ts";
import { type ApiError, asApiError, request } from "../lib/api.ts";
import { subscribe } from "../lib/live.ts";
import type { LogEntry } from "./inspector-model.ts";

/** Pages read before following: a session keeps at most its configured bound anyway, this caps what one tab holds. */
const MAX_PAGES = 20;
/** Without the live socket, a running session's log is read again this often. */
const POLL_MS = 5_000;

export type FeedState = "loading" | "live" | "complete" | "offline";

/**
 * A session's log for the inspector: every entry so far, read page by page (1000 a page), then, while
 * the session runs, each new one as it is written (the `sessionLogs` subscription, the same way the
 * page follows its events). Entries are kept in seq order without duplicates, so a replay after the
 * socket comes back, or a read that overlaps the feed, changes nothing.
 */
export function useSessionLogs(workspace: string, id: string, opts: { enabled: boolean; running: boolean }) {
  const [entries, setEntries] = useState<LogEntry[]>([]);
  const [error, setError] = useState<ApiError | undefined>();
  const [state, setState] = useState<FeedState>("loading");
  const { enabled, running } = opts;
  // The highest seq held, across re-runs (the session ending re-reads from there, not from the start).
  const held = useRef({ key: "", last: 0 });

  useEffect(() => {
    if (!enabled) return;
    const key = `${workspace}/${id}`;
    if (held.current.key !== key) {
      held.current = { key, last: 0 };
      setEntries([]);
    }
    let stopped = false;
    let last = held.current.last;
    let stopFeed: (() => void) | undefined;
    let poll: ReturnType<typeof setTimeout> | undefined;
    const add = (incoming: LogEntry[]) => {
      if (incoming.length === 0) return;
      last = Math.max(last, ...incoming.map((e) => e.seq));
      held.current.last = last;
      setEntries((prev) => {
        const seen = new Set(prev.map((e) => e.seq));
        const fresh = incoming.filter((e) => !seen.has(e.seq));
        if (fresh.length === 0) return prev;
        const next = [...prev, ...fresh];
        // Most arrive in order: sort only when one did not.
        return fresh[0]!.seq > (prev.at(-1)?.seq ?? 0) && isSorted(fresh) ? next : next.sort((a, b) => a.seq - b.seq);
      });
    };
    const readAll = async () => {
      let cursor: string | undefined;
      for (let page = 0; page < MAX_PAGES && !stopped; page++) {
        const d = await request(SessionLogsDocument, { workspace, id, after: cursor ? undefined : last, cursor });
        add(d.sessionLogs.items);
        if (!d.sessionLogs.hasMore || !d.sessionLogs.nextCursor) return;
        cursor = d.sessionLogs.nextCursor;
      }
    };
    const pollLater = () => {
      poll = setTimeout(() => {
        readAll().then(pollLater, (e: unknown) => {
          setError(asApiError(e));
          pollLater();
        });
      }, POLL_MS);
    };
    const follow = () => {
      stopFeed = subscribe(
        SessionLogsFeedDocument,
        { workspace, id, after: last },
        {
          next: (d) => add([d.sessionLogs]),
          error: (err) => {
            // The socket is gone or refused: keep reading over HTTP while the session runs.
            setError(err);
            setState("offline");
            if (!stopped && poll === undefined) pollLater();
          },
          complete: () => setState("complete"),
        },
      );
    };

    setState("loading");
    readAll().then(
      () => {
        if (stopped) return;
        setError(undefined);
        if (running) {
          setState("live");
          follow();
        } else {
          setState("complete");
        }
      },
      (e: unknown) => {
        if (stopped) return;
        setError(asApiError(e));
        setState("offline");
        if (running) pollLater();
      },
    );
    return () => {
      stopped = true;
      stopFeed?.();
      clearTimeout(poll);
    };
  }, [workspace, id, enabled, running]);

  return { entries, error, state };
}

function isSorted(list: LogEntry[]): boolean {
  for (let i = 1; i < list.length; i++) if (list[i]!.seq <= list[i - 1]!.seq) return false;
  return true;
}
