// Every setting Vessel reads: its key in the configuration, its environment variable, how it is
// read, what the README says of it, and its default. src/config.ts loads and checks them.
import os from "node:os";
import { z } from "zod";

/** A duration in seconds (fractions allowed: tests shorten heartbeats below a second). */
export function seconds(min: number, max: number) {
  return z.coerce
    .number<string | number>({ error: "must be a number of seconds" })
    .min(min, `must be at least ${min} seconds`)
    .max(max, `must be at most ${max} seconds`);
}

/** One documented setting: where it lives in the file, which variable overrides it, and its default. */
export interface Setting {
  key: string;
  env: string;
  kind: "string" | "number" | "list" | "boolean";
  description: string;
  fallback?: (partial: Record<string, unknown>) => unknown;
  /** The default comes from another setting: a problem with it is that setting's, reported there once. */
  derived?: boolean;
}

/** The node timeout a partial configuration names (seconds), or its default. */
function nodeTimeoutOf(c: Record<string, unknown>): number {
  const t = Number((c.cluster as Record<string, unknown> | undefined)?.nodeTimeoutSeconds ?? 30);
  return Number.isFinite(t) && t > 0 ? t : 30;
}
const skewDefault = (c: Record<string, unknown>) => Math.min(2, nodeTimeoutOf(c) / 10);
const leaseDefault = (c: Record<string, unknown>) => nodeTimeoutOf(c) / 2;

export const settings: readonly Setting[] = [
  { key: "port", env: "PORT", kind: "number", description: "HTTP port", fallback: () => 8080 },
  {
    key: "host", env: "VESSEL_HOST", kind: "string",
    description: "Address to listen on. The default is this machine alone; `0.0.0.0` (or `::`) opens it to the network, as the Docker image and the Kubernetes manifests do",
    fallback: () => "127.0.0.1",
  },
  {
    key: "publicBaseUrl", env: "VESSEL_PUBLIC_BASE_URL", kind: "string",
    description: "Address clients use to reach the service; used in `connect_url`, `live_view_url` and problem `type`s",
    fallback: (c) => `http://localhost:${typeof c.port === "number" || typeof c.port === "string" ? c.port : 8080}`,
  },
  { key: "regions", env: "VESSEL_REGIONS", kind: "list", description: "Regions this deployment serves (comma-separated)", fallback: () => ["us-east1"] },
  {
    key: "nodeRegion", env: "VESSEL_NODE_REGION", kind: "string", description: "The region this node's browsers run in (one of the regions)",
    fallback: (c) => (Array.isArray(c.regions) ? c.regions[0] : "us-east1"), derived: true,
  },
  {
    key: "internalUrl", env: "VESSEL_INTERNAL_URL", kind: "string",
    description: "Address other nodes use to reach this one (for example `http://<pod IP>:8080`); default: the public base URL",
    fallback: (c) => c.publicBaseUrl, derived: true,
  },
  {
    key: "cluster.heartbeatSeconds", env: "VESSEL_HEARTBEAT_SECONDS", kind: "number",
    description: "How often a node records its heartbeat, capacity and free slots (PostgreSQL deployments)", fallback: () => 5,
  },
  {
    key: "cluster.nodeTimeoutSeconds", env: "VESSEL_NODE_TIMEOUT_SECONDS", kind: "number",
    description: "A node silent this long is dead: a peer ends its sessions (node_shutdown); must exceed the lease plus the clock-skew margin", fallback: () => 30,
  },
  {
    key: "cluster.leaseSeconds", env: "VESSEL_LEASE_SECONDS", kind: "number",
    description: "How long a renewed lease lets a node run its sessions: a node that cannot renew it in time closes its sessions' sockets (4503) and browsers; default: half the node timeout",
    fallback: (c) => leaseDefault(c), derived: true,
  },
  {
    key: "cluster.clockSkewSeconds", env: "VESSEL_CLOCK_SKEW_SECONDS", kind: "number",
    description: "Margin between a lease running out and peers taking the node for dead (timers firing late, clocks running at different rates); default: a tenth of the node timeout, at most 2",
    fallback: (c) => skewDefault(c), derived: true,
  },
  {
    key: "cluster.placementTimeoutMs", env: "VESSEL_PLACEMENT_TIMEOUT_MS", kind: "number",
    description: "Longest a create waits to reach another node (or the database) before it is placed elsewhere or answered 503; also bounds connecting a relayed socket to its node",
    fallback: () => 2000,
  },
  {
    key: "drainSeconds", env: "VESSEL_DRAIN_SECONDS", kind: "number",
    description: "After SIGTERM, how long running sessions may continue before they end with node_shutdown", fallback: () => 600,
  },
  { key: "metricsToken", env: "VESSEL_METRICS_TOKEN", kind: "string", description: "Bearer token `GET /metrics` requires; unset = no token" },
  {
    key: "trustedProxies", env: "VESSEL_TRUSTED_PROXIES", kind: "list",
    description: "Load balancers and proxies (CIDRs, comma-separated) whose `X-Forwarded-For` / `Forwarded` name the client; none = those headers are ignored",
    fallback: () => [],
  },
  {
    key: "workspaceMaxSessions", env: "VESSEL_WORKSPACE_MAX_SESSIONS", kind: "number",
    description: "Most live sessions one workspace may hold at once, across the cluster; unset = no cap",
  },
  { key: "database.url", env: "DATABASE_URL", kind: "string", description: "PostgreSQL URL; unset = embedded PGlite in the data folder" },
  { key: "database.dataDir", env: "VESSEL_DATA_DIR", kind: "string", description: "Folder for embedded data (PGlite, generated keys)", fallback: () => ".data" },
  { key: "redis.url", env: "REDIS_URL", kind: "string", description: "Redis URL for rate limits and pub/sub across nodes; unset = in-process" },
  {
    key: "dashboard.api.bootstrapAdminEmails", env: "VESSEL_BOOTSTRAP_ADMIN_EMAILS", kind: "list",
    description: "Organization admins allowed to sign in and create workspaces (comma-separated)", fallback: () => [],
  },
  {
    key: "masterKey", env: "VESSEL_MASTER_KEY", kind: "string",
    description: "32 random bytes in base64 that encrypt signing keys and profiles; required with `DATABASE_URL`, generated into the data folder otherwise",
  },
  { key: "nodeId", env: "VESSEL_NODE_ID", kind: "string", description: "This node's name, stable across restarts (for example the pod name)", fallback: () => os.hostname() },
  { key: "browser.executablePath", env: "VESSEL_CHROMIUM_PATH", kind: "string", description: "Chromium binary; default: the headless shell, else Debian's chromium" },
  {
    key: "browser.capacity", env: "VESSEL_BROWSER_CAPACITY", kind: "number",
    description: "Most browsers (sessions) this node runs at once; default from memory (about 320 MB each)", fallback: () => defaultCapacity(),
  },
  { key: "browser.warm", env: "VESSEL_BROWSER_WARM", kind: "number", description: "Spare browsers kept launched so a session starts without waiting", fallback: () => 1 },
  {
    key: "browser.warmMax", env: "VESSEL_WARM_POOL_MAX", kind: "number",
    description: "Most spare browsers kept while recent demand (the last 3 minutes' bursts, a steady stream of starts) needs more than `browser.warm` (not when that is 0); only within free slots and while 1 GiB of memory stays available (about 256 MB per spare)",
    fallback: () => 8,
  },
  {
    key: "browser.egressAllow", env: "VESSEL_EGRESS_ALLOW", kind: "list",
    description: "What sessions may reach besides the public internet: CIDRs (`10.1.0.0/16`) and host names (`intranet.example`, `*.corp.example`), comma-separated; loopback, private, link-local and metadata addresses are refused otherwise",
    fallback: () => [],
  },
  {
    key: "browser.downloadMaxBytes", env: "VESSEL_DOWNLOAD_MAX_BYTES", kind: "number",
    description: "Most bytes one session's downloads may take together; a download that would pass it is cancelled and deleted. 0 = no downloads",
    fallback: () => 256 * 1024 * 1024,
  },
  {
    key: "browser.pingSeconds", env: "VESSEL_BROWSER_PING_SECONDS", kind: "number",
    description: "How often the watchdog pings each session's browser over CDP; 0 = never", fallback: () => 5,
  },
  {
    key: "browser.pingTimeoutSeconds", env: "VESSEL_BROWSER_PING_TIMEOUT_SECONDS", kind: "number",
    description: "A browser that has not answered a ping for this long is killed (its session fails with `browser_crash`)", fallback: () => 15,
  },
  {
    key: "browser.jail", env: "VESSEL_BROWSER_JAIL", kind: "string",
    description: "Jail each browser (bubblewrap: no view of this machine's files, no network but the egress listener): `auto` (when the kernel allows it, else a loud warning), `required` or `off`",
    fallback: () => "auto",
  },
  {
    key: "browser.uid", env: "VESSEL_BROWSER_UID", kind: "number",
    description: "First host uid of the range jailed browsers and recording encoders run as, one uid each (the next 65536 ids; used where the service may switch users, as root does). Give each node on one machine its own range; no account needs to exist",
    fallback: () => 2_000_000_000,
  },
  {
    key: "browser.gid", env: "VESSEL_BROWSER_GID", kind: "number",
    description: "First host gid of the same range (each jailed program's group is this plus the offset of its uid)",
    fallback: () => 2_000_000_000,
  },
  {
    key: "browser.scheduling", env: "VESSEL_BROWSER_SCHEDULING", kind: "string",
    description: "How the browsers' processes are scheduled: `batch` (Linux SCHED_BATCH: a browser waking up does not preempt the node's event loop) or `normal`",
    fallback: () => "batch",
  },
  {
    key: "browser.cdpRelay", env: "VESSEL_CDP_RELAY", kind: "string",
    description: "Where the sessions' CDP clients are relayed: `process` (a process of its own that owns the browsers' pipes, so a client's messages never wait for the API) or `inline` (the node's main thread)",
    fallback: () => "process",
  },
  {
    key: "browser.cdpRelayHosts", env: "VESSEL_CDP_RELAY_HOSTS", kind: "number",
    description: "How many relay host processes the browsers are spread over (with `process`): each relays the sessions of the browsers given to it, so one client's traffic holds up only the sessions sharing its host. Default: one per core, at most 4",
    fallback: () => Math.min(4, os.availableParallelism()),
  },
  {
    key: "browser.cdpPolicy", env: "VESSEL_CDP_POLICY", kind: "string",
    description: "The CDP method policy, `on` or `off`; `off` is for tests of the other isolation layers only",
    fallback: () => "on",
  },
  {
    key: "browser.cdpMaxMessageBytes", env: "VESSEL_CDP_MAX_MESSAGE_BYTES", kind: "number",
    description: "Largest CDP message a client may send, in bytes; a larger one closes its socket with 1009 (message too big)",
    fallback: () => 96 * 1024 * 1024,
  },
  {
    key: "browser.uploadMaxBytes", env: "VESSEL_UPLOAD_MAX_BYTES", kind: "number",
    description: "Most bytes of files uploaded into one session (POST /v1/sessions/{id}/files), one file or all together; 0 = no uploads",
    fallback: () => 100 * 1024 * 1024,
  },
  {
    key: "browser.uploadMaxFiles", env: "VESSEL_UPLOAD_MAX_FILES", kind: "number",
    description: "Most files uploaded into one session; one more is 413",
    fallback: () => 200,
  },
  {
    key: "browser.uploadMinFreeBytes", env: "VESSEL_UPLOAD_MIN_FREE_BYTES", kind: "number",
    description: "An upload is refused with 507 when the volume it lands on would keep less than this many bytes free (uploads in progress counted); 0 = no check",
    fallback: () => 1024 * 1024 * 1024,
  },
  {
    key: "browser.cdpMaxSocketsPerSession", env: "VESSEL_CDP_MAX_SOCKETS_PER_SESSION", kind: "number",
    description: "Most CDP WebSockets one session may have open at once (counted on the node that runs it, relayed ones included); one more is closed with 1008",
    fallback: () => 16,
  },
  {
    key: "profiles.maxBytes", env: "VESSEL_PROFILE_MAX_BYTES", kind: "number",
    description: "Largest profile (cookies, localStorage and sessionStorage as stored), in bytes; at most 16 MiB", fallback: () => 5 * 1024 * 1024,
  },
  {
    key: "extensions.maxPerWorkspace", env: "VESSEL_EXTENSIONS_MAX_PER_WORKSPACE", kind: "number",
    description: "Most extensions one workspace may store (POST /v1/extensions); beyond it an upload is 409 extension-quota-exceeded", fallback: () => 50,
  },
  {
    key: "extensions.maxBytesPerWorkspace", env: "VESSEL_EXTENSIONS_MAX_BYTES_PER_WORKSPACE", kind: "number",
    description: "Most bytes of extension zips (as uploaded) one workspace may store; beyond it an upload is 409 extension-quota-exceeded", fallback: () => 256 * 1024 * 1024,
  },
  {
    key: "logs.enabled", env: "VESSEL_LOGS", kind: "boolean",
    description: "Capture each session's console, page errors, navigations, network requests and CDP methods unless its create says `logs: false`",
    fallback: () => true,
  },
  { key: "logs.maxEntries", env: "VESSEL_LOGS_MAX_ENTRIES", kind: "number", description: "Most log entries kept per session; later ones are dropped after a `logs.truncated` entry", fallback: () => 20_000 },
  { key: "logs.maxBytes", env: "VESSEL_LOGS_MAX_BYTES", kind: "number", description: "Most bytes of log entries kept per session (as JSON)", fallback: () => 8 * 1024 * 1024 },
  { key: "logs.retentionDays", env: "VESSEL_LOGS_RETENTION_DAYS", kind: "number", description: "Days a session's logs are kept after it starts, then deleted", fallback: () => 7 },
  {
    key: "recording.enabled", env: "VESSEL_RECORDING", kind: "boolean",
    description: "Record each session's screen into a video unless its create says `recording: false` (default: only sessions created with `recording: true`)",
    fallback: () => false,
  },
  { key: "recording.retentionDays", env: "VESSEL_RECORDING_RETENTION_DAYS", kind: "number", description: "Days a recording is kept after its session starts, then deleted", fallback: () => 7 },
  { key: "recording.ffmpegPath", env: "VESSEL_FFMPEG_PATH", kind: "string", description: "The ffmpeg binary that encodes recordings; default: /usr/bin/ffmpeg (Debian's `ffmpeg`)" },
  {
    key: "webhooks.retryBaseMs", env: "VESSEL_WEBHOOK_RETRY_BASE_MS", kind: "number",
    description: "Delay before a failed webhook delivery's first retry, in ms, doubled after each failed attempt (at most 4 hours apart) for 24 hours",
    fallback: () => 5000,
  },
  {
    key: "mail.smtp.host", env: "VESSEL_SMTP_HOST", kind: "string",
    description: "SMTP server for sign-in links and invitations; unset = mails are written to the server log (development)",
  },
  {
    key: "mail.smtp.tls", env: "VESSEL_SMTP_TLS", kind: "string",
    description: "`starttls` (upgrade required), `implicit` (TLS from the first byte) or `none` (plain; a relay on the same host only)",
    fallback: () => "starttls",
  },
  {
    key: "mail.smtp.port", env: "VESSEL_SMTP_PORT", kind: "number", description: "SMTP port",
    fallback: (c) => (getPath(c, "mail.smtp.tls") === "implicit" ? 465 : 587),
  },
  { key: "mail.smtp.user", env: "VESSEL_SMTP_USER", kind: "string", description: "SMTP user name; unset = no authentication" },
  { key: "mail.smtp.password", env: "VESSEL_SMTP_PASSWORD", kind: "string", description: "SMTP password" },
  {
    key: "mail.from", env: "VESSEL_MAIL_FROM", kind: "string", description: "Sender of Vessel's mails",
    fallback: (c) => `Vessel <vessel@${mailDomain(c.publicBaseUrl)}>`,
  },
  { key: "graphiql", env: "VESSEL_GRAPHIQL", kind: "boolean", description: "Serve GraphiQL at `/graphql`", fallback: () => true },
  { key: "logLevel", env: "LOG_LEVEL", kind: "string", description: "Log level (`fatal` … `trace`, `silent`)", fallback: () => "info" },
];

export function getPath(obj: Record<string, unknown>, key: string): unknown {
  return key.split(".").reduce<unknown>((o, k) => (o && typeof o === "object" ? (o as Record<string, unknown>)[k] : undefined), obj);
}

/** The host of the public base URL, for the default sender address. */
export function mailDomain(publicBaseUrl: unknown): string {
  try {
    return new URL(String(publicBaseUrl)).hostname || "localhost";
  } catch {
    return "localhost";
  }
}

/** A Chromium costs about 320 MB here (research/browser-limits.md); keep a quarter of memory for everything else. */
export function defaultCapacity(): number {
  return Math.max(1, Math.min(200, Math.floor((os.totalmem() * 0.75) / (320 * 1024 * 1024))));
}
