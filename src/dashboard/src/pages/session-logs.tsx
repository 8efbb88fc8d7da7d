import { memo, useEffect, useRef, useState } from "react";
import { formatDateTime } from "../lib/format.ts";
import { formatOffset, type Item } from "./inspector-model.ts";

/** Rows drawn at first; more on request (a long session's log has thousands). */
const PAGE = 300;

const kindWords: Record<string, string> = {
  console: "Console",
  page_error: "Error",
  navigation: "Navigation",
  network: "Network",
  cdp: "CDP",
  "logs.truncated": "Log",
  event: "Event",
};

/**
 * The log as a list, oldest first: when (from the session's start), what kind, what. Each row is a
 * button: it picks the entry (the video seeks there) and opens its fields. The picked row is kept in
 * view inside the list only, so the page itself does not jump away from the video.
 */
export const LogList = memo(function LogList({
  items,
  start,
  selected,
  onPick,
}: {
  items: Item[];
  start: number;
  selected: string | undefined;
  onPick: (item: Item) => void;
}) {
  const [limit, setLimit] = useState(PAGE);
  const list = useRef<HTMLOListElement>(null);
  const index = selected ? items.findIndex((i) => i.key === selected) : -1;
  // An entry picked on the timeline beyond what is drawn is drawn too.
  const upto = index >= limit ? index + PAGE : limit;

  useEffect(() => {
    const box = list.current;
    const row = box?.querySelector<HTMLElement>(".log-row.is-selected");
    if (!box || !row) return;
    const top = row.offsetTop - box.offsetTop;
    if (top < box.scrollTop || top + row.offsetHeight > box.scrollTop + box.clientHeight) box.scrollTop = Math.max(0, top - box.clientHeight / 3);
  }, [selected]);

  if (items.length === 0) return <p className="muted pad">Nothing logged yet with these filters.</p>;
  return (
    <>
      <ol className="log-list" ref={list} aria-label="Log entries, oldest first">
        {items.slice(0, upto).map((item) => {
          const picked = item.key === selected;
          return (
            <li key={item.key} className={`log-row tone-${item.tone}${picked ? " is-selected" : ""}`} data-kind={item.kind}>
              <button type="button" className="log-main" aria-expanded={picked} onClick={() => onPick(item)}>
                <time className="log-time tabular" dateTime={item.iso} title={formatDateTime(item.iso)}>
                  {formatOffset(item.at - start)}
                </time>
                <span className="log-kind">{kindWords[item.kind] ?? item.kind}</span>
                <span className="log-text">
                  {item.tag ? <span className="log-tag">{item.tag}</span> : null}
                  <span className="log-title">{item.title}</span>
                  {item.detail ? <span className="log-detail">{item.detail}</span> : null}
                </span>
                {item.source ? <span className="log-source mono">{item.source}</span> : null}
              </button>
              {picked ? <pre className="log-data">{JSON.stringify(item.data, null, 2)}</pre> : null}
            </li>
          );
        })}
      </ol>
      {items.length > upto ? (
        <button type="button" className="link-btn log-more" onClick={() => setLimit(upto + PAGE)}>
          Show {Math.min(PAGE, items.length - upto).toLocaleString()} more of {(items.length - upto).toLocaleString()}
        </button>
      ) : null}
    </>
  );
});
