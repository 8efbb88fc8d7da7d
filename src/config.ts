import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { parseCidr } from "./auth/client-address.ts";

/**
 * The only reader of process.env. Sources, later ones winning: built-in defaults, a JSON config
 * file (VESSEL_CONFIG, or ./vessel.config.json when present), then environment variables.
 * Every problem is collected and reported at once.
 */

const RegionName = z
  .string()
  .trim()
  .min(1, { message: "a region name cannot be empty", abort: true })
  .regex(/^[a-z0-9][a-z0-9-]*$/, "a region name is lower-case letters, digits and dashes");

/** The most VESSEL_PROFILE_MAX_BYTES may be: profile imports are parsed whole, within a fixed body limit. */
export const PROFILE_MAX_BYTES_CEILING = 16 * 1024 * 1024;

const ConfigSchema = z.object({
  port: z.coerce
    .number<string | number>({ error: "must be a whole number from 0 to 65535" })
    .int("must be a whole number from 0 to 65535")
    .min(0, "must be a whole number from 0 to 65535")
    .max(65535, "must be a whole number from 0 to 65535"),
  host: z.string().min(1),
  publicBaseUrl: z
    .url({ protocol: /^https?$/, message: "must be an absolute http(s) URL" })
    .transform((u) => u.replace(/\/+$/, "")),
  regions: z
    .array(RegionName)
    .min(1, "at least one region is required")
    .refine((r) => new Set(r).size === r.length, "region names must be unique"),
  /** Address other nodes use to reach this one (forwarded CDP and live-view connections, internal calls). */
  internalUrl: z
    .url({ protocol: /^https?$/, message: "must be an absolute http(s) URL" })
    .transform((u) => u.replace(/\/+$/, "")),
  /** The region this node's browsers run in (one of `regions`). */
  nodeRegion: RegionName,
  /** Several nodes sharing PostgreSQL: heartbeats, and when a silent node counts as dead. */
  cluster: z.object({
    heartbeatSeconds: seconds(0.05, 300),
    nodeTimeoutSeconds: seconds(0.2, 3600),
  }),
  /** After SIGTERM, how long running sessions may go on before they end with node_shutdown. */
  drainSeconds: seconds(0, 86_400),
  /** Bearer token that `GET /metrics` requires; unset = open (keep it off the public network then). */
  metricsToken: z.string().min(16, "must be at least 16 characters").optional(),
  /** Proxies (CIDRs) whose X-Forwarded-For / Forwarded name the client; none = those headers are ignored. */
  trustedProxies: z.array(z.string().refine((s) => parseCidr(s) !== null, "must be a CIDR (10.0.0.0/8) or an IP address")),
  /** Most live sessions one workspace holds at once, cluster-wide (a workspace's max_sessions overrides it); unset = no cap. */
  workspaceMaxSessions: z.coerce.number<string | number>({ error: "must be a whole number" }).int("must be a whole number").min(1, "must be at least 1").optional(),
  database: z.object({
    url: z.string().regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL").optional(),
    dataDir: z.string().min(1),
  }),
  redis: z.object({
    url: z.string().regex(/^rediss?:\/\//, "must be a redis:// or rediss:// URL").optional(),
  }),
  dashboard: z.object({
    api: z.object({
      bootstrapAdminEmails: z.array(z.email().transform((e) => e.toLowerCase())),
    }),
  }),
  /** 32 bytes, base64. Wraps signing keys and profile data keys. Generated into the data folder when unset (embedded only). */
  masterKey: z
    .string()
    .refine((k) => Buffer.from(k, "base64").length === 32 && /^[A-Za-z0-9+/]+={0,2}$/.test(k), "must be 32 bytes in base64 (openssl rand -base64 32)")
    .optional(),
  /** This node's name, stable across restarts so it can end what it left behind. */
  nodeId: z.string().min(1).max(128).regex(/^[A-Za-z0-9._-]+$/, "letters, digits, dots, dashes and underscores"),
  browser: z.object({
    executablePath: z.string().min(1).optional(),
    capacity: z.coerce.number<string | number>().int("must be a whole number").min(1, "must be at least 1").max(1000),
    warm: z.coerce.number<string | number>().int("must be a whole number").min(0).max(32),
    /** Addresses (CIDRs) and host names sessions may reach beyond the public internet. */
    egressAllow: z.array(z.string().min(1)),
    /** Most bytes one session's downloads may take together (0 = downloads refused). */
    downloadMaxBytes: z.coerce
      .number<string | number>({ error: "must be a whole number of bytes" })
      .int("must be a whole number of bytes")
      .min(0, "must be 0 or more"),
    /** The watchdog asks every session's browser for its version this often (0 = never)… */
    pingSeconds: seconds(0, 3600),
    /** …and kills one that has not answered for this long (the session fails with browser_crash). */
    pingTimeoutSeconds: seconds(0.1, 3600),
    /**
     * How each Chromium is jailed (bubblewrap: its own mount, pid and network namespaces, docs/threat-model.md):
     * `auto` jails when the kernel allows it and warns loudly when not, `required` refuses to start without it,
     * `off` runs browsers unjailed (development only).
     */
    jail: z.enum(["auto", "required", "off"], { error: "must be auto, required or off" }),
    /** The CDP method policy; `off` exists for the isolation tests that check the other layers alone. */
    cdpPolicy: z.enum(["on", "off"], { error: "must be on or off" }),
    /**
     * Largest CDP message a client may send; a larger one closes its socket with 1009. At most
     * Chromium's own 100 MiB: its pipe closes (the whole browser's DevTools) on a larger message.
     */
    cdpMaxMessageBytes: z.coerce
      .number<string | number>({ error: "must be a whole number of bytes" })
      .int("must be a whole number of bytes")
      .min(1024 * 1024, "must be at least 1048576 (1 MiB)")
      .max(100 * 1024 * 1024, "must be at most 104857600 (100 MiB, Chromium's own limit)"),
  }),
  profiles: z.object({
    /** Largest profile document (cookies and storage), in bytes; capped by the import route's body limit. */
    maxBytes: z.coerce
      .number<string | number>({ error: "must be a whole number of bytes" })
      .int("must be a whole number of bytes")
      .min(1024, "must be at least 1024")
      .max(PROFILE_MAX_BYTES_CEILING, `must be at most ${PROFILE_MAX_BYTES_CEILING} (16 MiB)`),
  }),
  /** Outgoing mail (dashboard sign-in links, invitations). Without an SMTP host, mails go to the log. */
  mail: z.object({
    from: z.string().trim().min(3).max(320).regex(/^[^\r\n]*@[^\r\n]*$/, "must be a mail address, optionally with a display name"),
    smtp: z.object({
      host: z.string().trim().min(1).optional(),
      port: z.coerce.number<string | number>().int("must be a whole number from 1 to 65535").min(1).max(65535),
      user: z.string().min(1).optional(),
      password: z.string().min(1).optional(),
      tls: z.enum(["starttls", "implicit", "none"], { error: "must be starttls, implicit or none" }),
    }),
  }),
  graphiql: z.boolean(),
  logLevel: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]),
});

export type Config = Readonly<z.infer<typeof ConfigSchema>>;

/** A duration in seconds (fractions allowed: tests shorten heartbeats below a second). */
function seconds(min: number, max: number) {
  return z.coerce
    .number<string | number>({ error: "must be a number of seconds" })
    .min(min, `must be at least ${min} seconds`)
    .max(max, `must be at most ${max} seconds`);
}

/** One documented setting: where it lives in the file, which variable overrides it, and its default. */
interface Setting {
  key: string;
  env: string;
  kind: "string" | "number" | "list" | "boolean";
  description: string;
  fallback?: (partial: Record<string, unknown>) => unknown;
  /** The default comes from another setting: a problem with it is that setting's, reported there once. */
  derived?: boolean;
}

export const settings: readonly Setting[] = [
  { key: "port", env: "PORT", kind: "number", description: "HTTP port", fallback: () => 8080 },
  { key: "host", env: "VESSEL_HOST", kind: "string", description: "Interface to listen on", fallback: () => "0.0.0.0" },
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
    description: "A node silent this long is dead: a peer ends its sessions (node_shutdown)", fallback: () => 30,
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
    key: "profiles.maxBytes", env: "VESSEL_PROFILE_MAX_BYTES", kind: "number",
    description: "Largest profile (cookies, localStorage and sessionStorage as stored), in bytes; at most 16 MiB", fallback: () => 5 * 1024 * 1024,
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

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

function getPath(obj: Record<string, unknown>, key: string): unknown {
  return key.split(".").reduce<unknown>((o, k) => (o && typeof o === "object" ? (o as Record<string, unknown>)[k] : undefined), obj);
}

function setPath(obj: Record<string, unknown>, key: string, value: unknown): void {
  const parts = key.split(".");
  let o = obj;
  for (const p of parts.slice(0, -1)) {
    if (typeof o[p] !== "object" || o[p] === null) o[p] = {};
    o = o[p] as Record<string, unknown>;
  }
  o[parts.at(-1)!] = value;
}

function fromEnv(setting: Setting, raw: string): unknown {
  switch (setting.kind) {
    case "list":
      return raw.split(",").map((s) => s.trim());
    case "boolean":
      return ["1", "true", "yes", "on"].includes(raw.trim().toLowerCase())
        ? true
        : ["0", "false", "no", "off"].includes(raw.trim().toLowerCase())
          ? false
          : raw;
    default:
      return raw;
  }
}

function readFile(file: string, problems: string[]): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(fs.readFileSync(file, "utf8"));
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
    problems.push(`${file}: must contain a JSON object`);
  } catch (err) {
    problems.push(`${file}: ${(err as Error).message}`);
  }
  return {};
}

/** Parses configuration; throws ConfigError listing every problem (with the variable or file key that caused it). */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): Config {
  const problems: string[] = [];
  const explicitFile = env.VESSEL_CONFIG;
  const defaultFile = path.join(cwd, "vessel.config.json");
  const file = explicitFile ? path.resolve(cwd, explicitFile) : fs.existsSync(defaultFile) ? defaultFile : undefined;
  const fileValues = file ? readFile(file, problems) : {};

  const raw: Record<string, unknown> = { database: {}, redis: {}, dashboard: { api: {} }, browser: {}, profiles: {}, cluster: {} };
  const origin = new Map<string, string>();
  for (const s of settings) {
    const envValue = env[s.env];
    if (envValue !== undefined && envValue !== "") {
      setPath(raw, s.key, fromEnv(s, envValue));
      origin.set(s.key, s.env);
    } else if (getPath(fileValues, s.key) !== undefined) {
      setPath(raw, s.key, getPath(fileValues, s.key));
      origin.set(s.key, `${path.basename(file!)}: ${s.key}`);
    }
  }
  for (const s of settings) if (getPath(raw, s.key) === undefined && s.fallback) setPath(raw, s.key, s.fallback(raw));

  const parsed = ConfigSchema.safeParse(raw);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const key = issue.path.filter((p) => typeof p === "string").join(".");
      if (!origin.has(key) && settings.find((s) => s.key === key)?.derived) continue;
      const index = issue.path.find((p) => typeof p === "number");
      const where = origin.get(key) ?? key;
      problems.push(`${where}${index !== undefined ? ` (entry ${index + 1})` : ""}: ${issue.message}`);
    }
  }
  if (parsed.success && parsed.data.database.url && !parsed.data.masterKey) {
    // Every node must read what another node encrypted, so a shared deployment cannot invent its own key.
    problems.push("VESSEL_MASTER_KEY: required when DATABASE_URL is set (all nodes must share it)");
  }
  if (parsed.success) {
    const { regions, nodeRegion, cluster } = parsed.data;
    if (!regions.includes(nodeRegion)) problems.push(`${origin.get("nodeRegion") ?? "nodeRegion"}: must be one of the regions (${regions.join(", ")})`);
    if (cluster.nodeTimeoutSeconds < 2 * cluster.heartbeatSeconds) {
      problems.push(`${origin.get("cluster.nodeTimeoutSeconds") ?? "VESSEL_NODE_TIMEOUT_SECONDS"}: must be at least twice the heartbeat (${cluster.heartbeatSeconds} s)`);
    }
  }
  if (parsed.success) {
    const smtp = parsed.data.mail.smtp;
    if (!smtp.host && (smtp.user || smtp.password)) problems.push("VESSEL_SMTP_HOST: required when an SMTP user or password is set");
    if (Boolean(smtp.user) !== Boolean(smtp.password)) problems.push("VESSEL_SMTP_USER, VESSEL_SMTP_PASSWORD: set both or neither");
  }
  if (problems.length > 0 || !parsed.success) throw new ConfigError(problems);
  return Object.freeze(parsed.data);
}

/** The host of the public base URL, for the default sender address. */
function mailDomain(publicBaseUrl: unknown): string {
  try {
    return new URL(String(publicBaseUrl)).hostname || "localhost";
  } catch {
    return "localhost";
  }
}

/** A Chromium costs about 320 MB here (research/browser-limits.md); keep a quarter of memory for everything else. */
function defaultCapacity(): number {
  return Math.max(1, Math.min(200, Math.floor((os.totalmem() * 0.75) / (320 * 1024 * 1024))));
}

/** The version in package.json, reported by health checks. */
export const version: string = JSON.parse(
  fs.readFileSync(new URL("../package.json", import.meta.url), "utf8"),
).version;
