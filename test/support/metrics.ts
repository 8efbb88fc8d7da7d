import type { BatchWriter } from "../../src/kernel/set-aside.ts";
import type { Metrics } from "../../src/metrics.ts";

/** `vessel_batch_entries_set_aside_total{writer}` of a node's metrics, read in process. */
export async function setAsideCount(metrics: Metrics, writer: BatchWriter): Promise<number> {
  return (await metrics.setAside.get()).values.find((v) => v.labels.writer === writer)?.value ?? 0;
}

/** One series of a node's `GET /metrics` (say `vessel_audit_queue_depth`), as scraped; undefined when absent. */
export async function scraped(baseUrl: string, series: string, headers: Record<string, string> = {}): Promise<number | undefined> {
  const text = await (await fetch(`${baseUrl}/metrics`, { headers })).text();
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}
