// Every setting Vessel reads: its key in the configuration, its environment variable, how it is
// read, what the README says of it, and its default. src/config.ts loads and checks them. The areas
// with many settings or defaults of their own (the cluster, the browsers, mail) are declared in
// settings-*.ts and spliced in here, in the order the defaults need (a derived default reads settings
// listed before it).
import os from "node:os";
import { z } from "zod";
import { browserSettings } from "./settings-browser.ts";
import { clusterSettings } from "./settings-cluster.ts";
import { mailSettings } from "./settings-mail.ts";
import type { Setting } from "./settings-shape.ts";

/** A duration in seconds (fractions allowed: tests shorten heartbeats below a second). */
export function seconds(min: number, max: number) {
  return z.coerce
    .number<string | number>({ error: "must be a number of seconds" })
    .min(min, `must be at least ${min} seconds`)
    .max(max, `must be at most ${max} seconds`);
}

export const settings: readonly Setting[] = [
  { key: "port", env: "PORT", kind: "number", description: "HTTP port", fallback: () => 8080 },
  {
    key: "host",
    env: "VESSEL_HOST",
    kind: "string",
    description:
      "Address to listen on. The default is this machine alone; `0.0.0.0` (or `::`) opens it to the network, as the Docker image and the Kubernetes manifests do",
    fallback: () => "127.0.0.1",
  },
  {
    key: "publicBaseUrl",
    env: "VESSEL_PUBLIC_BASE_URL",
    kind: "string",
    description: "Address clients use to reach the service; used in `connect_url`, `live_view_url` and problem `type`s",
    fallback: (c) => `http://localhost:${typeof c.port === "number" || typeof c.port === "string" ? c.port : 8080}`,
  },
  { key: "regions", env: "VESSEL_REGIONS", kind: "list", description: "Regions this deployment serves (comma-separated)", fallback: () => ["us-east1"] },
  {
    key: "nodeRegion",
    env: "VESSEL_NODE_REGION",
    kind: "string",
    description: "The region this node's browsers run in (one of the regions)",
    fallback: (c) => (Array.isArray(c.regions) ? c.regions[0] : "us-east1"),
    derived: true,
  },
  {
    key: "internalUrl",
    env: "VESSEL_INTERNAL_URL",
    kind: "string",
    description: "Address other nodes use to reach this one (for example `http://<pod IP>:8080`); default: the public base URL",
    fallback: (c) => c.publicBaseUrl,
    derived: true,
  },
  ...clusterSettings,
  {
    key: "drainSeconds",
    env: "VESSEL_DRAIN_SECONDS",
    kind: "number",
    description: "After SIGTERM, how long running sessions may continue before they end with node_shutdown",
    fallback: () => 600,
  },
  { key: "metricsToken", env: "VESSEL_METRICS_TOKEN", kind: "string", description: "Bearer token `GET /metrics` requires; unset = no token" },
  {
    key: "trustedProxies",
    env: "VESSEL_TRUSTED_PROXIES",
    kind: "list",
    description: "Load balancers and proxies (CIDRs, comma-separated) whose `X-Forwarded-For` / `Forwarded` name the client; none = those headers are ignored",
    fallback: () => [],
  },
  {
    key: "workspaceMaxSessions",
    env: "VESSEL_WORKSPACE_MAX_SESSIONS",
    kind: "number",
    description: "Most live sessions one workspace may hold at once, across the cluster; unset = no cap",
  },
  {
    key: "maxSessionSeconds",
    env: "VESSEL_MAX_SESSION_SECONDS",
    kind: "number",
    description:
      "The longest a session may live, in seconds (60 to 86400): the default and the most a create's `timeout_seconds` may ask (a workspace's `max_session_seconds` overrides it)",
    fallback: () => 1800,
  },
  {
    key: "workspaceMaxQueued",
    env: "VESSEL_WORKSPACE_MAX_QUEUED",
    kind: "number",
    description: "Most sessions one workspace may have waiting in the admission queue (`queue_timeout_seconds`); beyond it a create is 429 `queue-full`",
    fallback: () => 100,
  },
  {
    key: "maxQueued",
    env: "VESSEL_MAX_QUEUED",
    kind: "number",
    description: "Most sessions waiting in the admission queue across the deployment; beyond it a create is 429 `queue-full`",
    fallback: () => 1000,
  },
  { key: "database.url", env: "DATABASE_URL", kind: "string", description: "PostgreSQL URL; unset = embedded PGlite in the data folder" },
  {
    key: "database.dataDir",
    env: "VESSEL_DATA_DIR",
    kind: "string",
    description: "Folder for embedded data (PGlite, generated keys)",
    fallback: () => ".data",
  },
  { key: "redis.url", env: "REDIS_URL", kind: "string", description: "Redis URL for rate limits and pub/sub across nodes; unset = in-process" },
  {
    key: "dashboard.api.bootstrapAdminEmails",
    env: "VESSEL_BOOTSTRAP_ADMIN_EMAILS",
    kind: "list",
    description: "Organization admins allowed to sign in and create workspaces (comma-separated)",
    fallback: () => [],
  },
  {
    key: "masterKey",
    env: "VESSEL_MASTER_KEY",
    kind: "string",
    description: "32 random bytes in base64 that encrypt signing keys and profiles; required with `DATABASE_URL`, generated into the data folder otherwise",
  },
  {
    key: "nodeId",
    env: "VESSEL_NODE_ID",
    kind: "string",
    description: "This node's name, stable across restarts (for example the pod name)",
    fallback: () => os.hostname(),
  },
  ...browserSettings,
  {
    key: "profiles.maxBytes",
    env: "VESSEL_PROFILE_MAX_BYTES",
    kind: "number",
    description: "Largest profile (cookies, localStorage and sessionStorage as stored), in bytes; at most 16 MiB",
    fallback: () => 5 * 1024 * 1024,
  },
  {
    key: "extensions.maxPerWorkspace",
    env: "VESSEL_EXTENSIONS_MAX_PER_WORKSPACE",
    kind: "number",
    description: "Most extensions one workspace may store (POST /v1/extensions); beyond it an upload is 409 extension-quota-exceeded",
    fallback: () => 50,
  },
  {
    key: "extensions.maxBytesPerWorkspace",
    env: "VESSEL_EXTENSIONS_MAX_BYTES_PER_WORKSPACE",
    kind: "number",
    description: "Most bytes of extension zips (as uploaded) one workspace may store; beyond it an upload is 409 extension-quota-exceeded",
    fallback: () => 256 * 1024 * 1024,
  },
  {
    key: "logs.enabled",
    env: "VESSEL_LOGS",
    kind: "boolean",
    description: "Capture each session's console, page errors, navigations, network requests and CDP methods unless its create says `logs: false`",
    fallback: () => true,
  },
  {
    key: "logs.maxEntries",
    env: "VESSEL_LOGS_MAX_ENTRIES",
    kind: "number",
    description: "Most log entries kept per session; later ones are dropped after a `logs.truncated` entry",
    fallback: () => 20_000,
  },
  {
    key: "logs.maxBytes",
    env: "VESSEL_LOGS_MAX_BYTES",
    kind: "number",
    description: "Most bytes of log entries kept per session (as JSON)",
    fallback: () => 8 * 1024 * 1024,
  },
  {
    key: "logs.retentionDays",
    env: "VESSEL_LOGS_RETENTION_DAYS",
    kind: "number",
    description: "Days a session's logs are kept after it starts, then deleted",
    fallback: () => 7,
  },
  {
    key: "recording.enabled",
    env: "VESSEL_RECORDING",
    kind: "boolean",
    description: "Record each session's screen into a video unless its create says `recording: false` (default: only sessions created with `recording: true`)",
    fallback: () => false,
  },
  {
    key: "recording.retentionDays",
    env: "VESSEL_RECORDING_RETENTION_DAYS",
    kind: "number",
    description: "Days a recording is kept after its session starts, then deleted",
    fallback: () => 7,
  },
  {
    key: "recording.ffmpegPath",
    env: "VESSEL_FFMPEG_PATH",
    kind: "string",
    description: "The ffmpeg binary that encodes recordings; default: /usr/bin/ffmpeg (Debian's `ffmpeg`)",
  },
  {
    key: "webhooks.retryBaseMs",
    env: "VESSEL_WEBHOOK_RETRY_BASE_MS",
    kind: "number",
    description: "Delay before a failed webhook delivery's first retry, in ms, doubled after each failed attempt (at most 4 hours apart) for 24 hours",
    fallback: () => 5000,
  },
  {
    key: "webhooks.allow",
    env: "VESSEL_WEBHOOK_ALLOW",
    kind: "list",
    description:
      "What webhook deliveries may reach besides the public internet: CIDRs and host names, comma-separated, as `VESSEL_EGRESS_ALLOW` is for the browsers (which this does not open). For a receiver on this machine: `127.0.0.1,localhost`",
    fallback: () => [],
  },
  ...mailSettings,
  { key: "graphiql", env: "VESSEL_GRAPHIQL", kind: "boolean", description: "Serve GraphiQL at `/graphql`", fallback: () => true },
  { key: "logLevel", env: "LOG_LEVEL", kind: "string", description: "Log level (`fatal` … `trace`, `silent`)", fallback: () => "info" },
  {
    key: "logFormat",
    env: "VESSEL_LOG_FORMAT",
    kind: "string",
    description: "`auto`: one human line per entry (local time, level, message) on a terminal, JSON otherwise; `json` or `pretty` to choose",
    fallback: () => "auto",
  },
];
