import { memo, useState } from "react";
import { formatBytes } from "../lib/format.ts";
import { formatOffset, networkOf, readableUrl, shortUrl, statusClass, type Item } from "./inspector-model.ts";

const PAGE = 300;

const statusWords = {
  ok: "2xx success",
  redirect: "3xx redirect",
  client: "4xx client error",
  server: "5xx server error",
  failed: "failed",
  none: "no answer",
};

function duration(ms: number | null): string {
  if (ms === null) return "—";
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

/**
 * The session's requests as a table: method, URL, status (coloured by class: 2xx, 3xx, 4xx, 5xx,
 * failed), resource type, response size, duration. The URL is a button that picks the request (the
 * video seeks to when it started); on a phone the table stacks into labelled cards.
 */
export const NetworkTable = memo(function NetworkTable({
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
  if (items.length === 0) return <p className="muted pad">No requests yet with these filters.</p>;
  return (
    <div className="network-wrap">
      <table className="table network-table responsive-table">
        <caption className="visually-hidden">Network requests, oldest first</caption>
        <thead>
          <tr>
            <th scope="col">Method</th>
            <th scope="col">URL</th>
            <th scope="col">Status</th>
            <th scope="col">Type</th>
            <th scope="col" className="num">
              Size
            </th>
            <th scope="col" className="num">
              Time
            </th>
          </tr>
        </thead>
        <tbody>
          {items.slice(0, limit).map((item) => {
            const n = networkOf(item.data);
            const cls = statusClass(n);
            const pageUrl = typeof item.data.page_url === "string" ? item.data.page_url : undefined;
            return (
              <tr key={item.key} className={item.key === selected ? "is-selected" : undefined} data-status-class={cls}>
                <td data-label="Method" className="mono nowrap">
                  {n.method}
                </td>
                <td data-label="URL" className="url-cell">
                  <button type="button" className="link-btn url-btn" title={n.url ? readableUrl(n.url) : undefined} onClick={() => onPick(item)}>
                    <span className="visually-hidden">{`At ${formatOffset(item.at - start)}: `}</span>
                    {shortUrl(n.url, pageUrl)}
                  </button>
                </td>
                <td data-label="Status">
                  <span className={`http-status http-${cls}`} title={[statusWords[cls], n.status_text, n.failure].filter(Boolean).join(" · ")}>
                    {n.status ?? "failed"}
                    {n.failure && n.status === null ? <span className="http-failure"> {n.failure.replace(/^net::/, "")}</span> : null}
                  </span>
                </td>
                <td data-label="Type">{n.resource_type ?? "—"}</td>
                <td data-label="Size" className="num tabular nowrap">
                  {n.response_bytes === null ? "—" : n.from_cache ? "cache" : formatBytes(n.response_bytes)}
                </td>
                <td data-label="Time" className="num tabular nowrap">
                  {duration(n.duration_ms)}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {items.length > limit ? (
        <button type="button" className="link-btn log-more" onClick={() => setLimit((l) => l + PAGE)}>
          Show {Math.min(PAGE, items.length - limit).toLocaleString()} more of {(items.length - limit).toLocaleString()}
        </button>
      ) : null}
    </div>
  );
});
