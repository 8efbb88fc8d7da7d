import { formatPair, type MetadataPair } from "../lib/metadata.ts";
import { CloseIcon } from "./icons.tsx";

/**
 * A session's labels as compact `key=value` chips. With `onPick`, each chip is a button that filters
 * the list by it; past `max`, the rest are counted in a last chip whose title lists them.
 */
export function MetadataChips({
  entries,
  max = entries.length,
  onPick,
  label = "Metadata",
}: {
  entries: readonly MetadataPair[];
  max?: number;
  onPick?: (pair: MetadataPair) => void;
  label?: string;
}) {
  if (entries.length === 0) return null;
  const shown = entries.slice(0, max);
  const rest = entries.slice(max);
  return (
    <ul className="chips" aria-label={label}>
      {shown.map((p) => (
        <li key={p.key}>
          {onPick ? (
            <button type="button" className="chip" title={`Show only sessions with ${formatPair(p)}`} onClick={() => onPick(p)}>
              <ChipText pair={p} />
            </button>
          ) : (
            <span className="chip" title={formatPair(p)}>
              <ChipText pair={p} />
            </span>
          )}
        </li>
      ))}
      {rest.length > 0 ? (
        <li>
          <span className="chip chip-more" title={rest.map(formatPair).join("\n")}>
            +{rest.length}
            <span className="visually-hidden"> more: {rest.map(formatPair).join(", ")}</span>
          </span>
        </li>
      ) : null}
    </ul>
  );
}

/** One run of inline text, so the chip reads (and is named) `team=qa`, never "team = qa". */
function ChipText({ pair }: { pair: MetadataPair }) {
  return (
    <span className="chip-text">
      <span className="chip-key">{pair.key}</span>=<span className="chip-value">{pair.value || "“”"}</span>
    </span>
  );
}

/** The list's active metadata filters, each removable. */
export function FilterChips({ filters, onRemove }: { filters: readonly MetadataPair[]; onRemove: (pair: MetadataPair) => void }) {
  return (
    <ul className="chips" aria-label="Metadata filters (every one must match)">
      {filters.map((p) => (
        <li key={p.key} className="chip chip-filter" data-filter={formatPair(p)}>
          <ChipText pair={p} />
          <button type="button" className="chip-remove" aria-label={`Remove the filter ${formatPair(p)}`} onClick={() => onRemove(p)}>
            <CloseIcon width={12} height={12} />
          </button>
        </li>
      ))}
    </ul>
  );
}
