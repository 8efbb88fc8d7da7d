import { memo, useMemo, type CSSProperties, type KeyboardEvent, type MouseEvent } from "react";
import { formatOffset, lanes, ticks, type Item, type Lane, type Tone } from "./inspector-model.ts";

/** Marks closer than this (percent of the strip) are drawn as one, so a busy second stays clickable. */
const MERGE_PCT = 0.8;

interface Mark {
  first: Item;
  count: number;
  pct: number;
  tone: Tone;
}

const pctOf = (at: number, start: number, end: number) => Math.min(100, Math.max(0, ((at - start) / Math.max(1, end - start)) * 100));

function marksOf(items: Item[], start: number, end: number): Mark[] {
  const marks: Mark[] = [];
  for (const item of items) {
    const pct = pctOf(item.at, start, end);
    const prev = marks.at(-1);
    if (prev && pct - prev.pct < MERGE_PCT) {
      prev.count++;
      if (item.tone === "red") prev.tone = "red";
    } else {
      marks.push({ first: item, count: 1, pct, tone: item.tone });
    }
  }
  return marks;
}

/** The position as a custom property: React sets it through the CSSOM, which the CSP allows (no inline style markup). */
const at = (pct: number) => ({ "--x": `${pct.toFixed(3)}%` }) as CSSProperties;

/**
 * The session's time axis (start → end) with a lane per kind of entry and a mark per entry (or per
 * cluster of close ones). A mark is a button: it picks its entry (the video seeks there). Each lane is
 * one stop for the Tab key; the arrow keys, Home and End move along its marks. The playhead shows the
 * video's position; a click on the empty track seeks there.
 */
export function InspectorTimeline({
  items,
  start,
  end,
  playhead,
  selected,
  onPick,
  onSeek,
}: {
  items: Item[];
  start: number;
  end: number;
  playhead: number | null;
  selected: string | undefined;
  onPick: (item: Item) => void;
  onSeek: ((at: number) => void) | undefined;
}) {
  // Only the playhead moves while the video plays: the axis and the lanes are drawn again only when they change.
  const style = playhead === null ? undefined : ({ "--playhead": `${pctOf(playhead, start, end).toFixed(3)}%` } as CSSProperties);
  return (
    <div className={`strip${playhead === null ? "" : " has-playhead"}${onSeek ? " can-seek" : ""}`} style={style}>
      <Lanes items={items} start={start} end={end} selected={selected} onPick={onPick} onSeek={onSeek} />
    </div>
  );
}

const Lanes = memo(function Lanes({
  items,
  start,
  end,
  selected,
  onPick,
  onSeek,
}: {
  items: Item[];
  start: number;
  end: number;
  selected: string | undefined;
  onPick: (item: Item) => void;
  onSeek: ((at: number) => void) | undefined;
}) {
  const byLane = useMemo(() => {
    const map = new Map<Lane, Item[]>();
    for (const item of items) {
      const list = map.get(item.lane);
      if (list) list.push(item);
      else map.set(item.lane, [item]);
    }
    return map;
  }, [items]);
  const shownLanes = lanes.filter((l) => byLane.has(l.id));

  const seekFromTrack = (e: MouseEvent<HTMLDivElement>) => {
    if (!onSeek || e.target !== e.currentTarget) return;
    const box = e.currentTarget.getBoundingClientRect();
    onSeek(start + ((e.clientX - box.left) / box.width) * (end - start));
  };

  return (
    <>
      <div className="strip-row strip-axis" aria-hidden="true">
        <span className="lane-label" />
        <div className="lane-track">
          {ticks(end - start).map((ms) => {
            const pct = pctOf(start + ms, start, end);
            return (
              <span key={ms} className={`tick${pct > 94 ? " is-end" : ""}`} style={at(pct)}>
                {formatOffset(ms).replace(/\.\d$/, "")}
              </span>
            );
          })}
        </div>
      </div>
      {shownLanes.length === 0 ? <p className="muted small strip-empty">Nothing to show with these filters.</p> : null}
      {shownLanes.map((lane) => {
        const marks = marksOf(byLane.get(lane.id)!, start, end);
        const focusIndex = Math.max(
          0,
          marks.findIndex((m) => m.first.key === selected),
        );
        return (
          <div
            key={lane.id}
            className="strip-row"
            role="group"
            aria-label={`${lane.label}: ${byLane.get(lane.id)!.length} on the timeline`}
            data-lane={lane.id}
          >
            <span className="lane-label" aria-hidden="true">
              {lane.label}
            </span>
            <div className="lane-track" onClick={seekFromTrack} onKeyDown={moveFocus}>
              {marks.map((m, i) => (
                <button
                  key={m.first.key}
                  type="button"
                  className={`mark tone-${m.tone}${m.count > 1 ? " is-group" : ""}${m.first.key === selected ? " is-selected" : ""}`}
                  style={at(m.pct)}
                  tabIndex={i === focusIndex ? 0 : -1}
                  data-kind={m.first.kind}
                  data-at={m.first.iso}
                  title={`${formatOffset(m.first.at - start)} ${m.first.title}${m.count > 1 ? ` (+${m.count - 1} more)` : ""}`}
                  aria-label={markLabel(m, lane.label, start)}
                  aria-pressed={m.first.key === selected}
                  onClick={() => onPick(m.first)}
                />
              ))}
            </div>
          </div>
        );
      })}
    </>
  );
});

function markLabel(m: Mark, lane: string, start: number): string {
  const when = formatOffset(m.first.at - start);
  const what = `${m.first.tag ? `${m.first.tag}: ` : ""}${m.first.title}${m.first.detail ? ` (${m.first.detail})` : ""}`.slice(0, 160);
  return m.count > 1 ? `${m.count} ${lane.toLowerCase()} entries from ${when}, first ${what}` : `${lane} at ${when}: ${what}`;
}

/** Arrow keys, Home and End within a lane (a roving tab stop: the focused mark becomes the lane's stop). */
function moveFocus(e: KeyboardEvent<HTMLDivElement>) {
  const marks = [...e.currentTarget.querySelectorAll<HTMLButtonElement>("button.mark")];
  const i = marks.indexOf(document.activeElement as HTMLButtonElement);
  if (i < 0) return;
  const next = e.key === "ArrowRight" ? i + 1 : e.key === "ArrowLeft" ? i - 1 : e.key === "Home" ? 0 : e.key === "End" ? marks.length - 1 : -2;
  if (next === -2) return;
  e.preventDefault();
  const target = marks[Math.min(marks.length - 1, Math.max(0, next))]!;
  for (const m of marks) m.tabIndex = m === target ? 0 : -1;
  target.focus();
}
