// Which answered requests are worth a line at info. Load balancers ask /healthz and /readyz every few
// seconds, Prometheus scrapes /metrics, and a dashboard load fetches a dozen assets: at info those
// drowned the lines a person looks for. They are logged at debug, unless they failed.
const quietExact = new Set(["/healthz", "/readyz", "/metrics", "/favicon.ico"]);
const quietPrefixes = ["/dashboard/assets/", "/live-view/assets/"];

/** The level a request's line is written at. */
export function requestLogLevel(path: string, status: number): "info" | "debug" {
  if (status >= 400) return "info";
  return quietExact.has(path) || quietPrefixes.some((p) => path.startsWith(p)) ? "debug" : "info";
}
