import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import { parseCidr } from "./ip-address.ts";
import { commaList } from "./comma-list.ts";
import { BrowserConfigSchema } from "./config-browser.ts";
import { byteCount } from "./config-sizes.ts";
import { seconds, settings } from "./settings.ts";
import { getPath, type Setting } from "./settings-shape.ts";

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

/** The most VESSEL_MAX_SESSION_SECONDS (or a workspace's own) may be: a day. */
export const SESSION_SECONDS_CEILING = 86_400;

/** The most VESSEL_PROFILE_MAX_BYTES may be: profile imports are parsed whole, within a fixed body limit. */
export const PROFILE_MAX_BYTES_CEILING = 16 * 1024 * 1024;

const ConfigSchema = z.object({
  port: z.coerce
    .number<string | number>({ error: "must be a whole number from 0 to 65535" })
    .int("must be a whole number from 0 to 65535")
    .min(0, "must be a whole number from 0 to 65535")
    .max(65535, "must be a whole number from 0 to 65535"),
  host: z.string().min(1),
  publicBaseUrl: z.url({ protocol: /^https?$/, message: "must be an absolute http(s) URL" }).transform((u) => u.replace(/\/+$/, "")),
  regions: z
    .array(RegionName)
    .min(1, "at least one region is required")
    .refine((r) => new Set(r).size === r.length, "region names must be unique"),
  /** Address other nodes use to reach this one (forwarded CDP and live-view connections, internal calls). */
  internalUrl: z.url({ protocol: /^https?$/, message: "must be an absolute http(s) URL" }).transform((u) => u.replace(/\/+$/, "")),
  /** The region this node's browsers run in (one of `regions`). */
  nodeRegion: RegionName,
  /** Several nodes sharing PostgreSQL: heartbeats, and when a silent node counts as dead. */
  cluster: z.object({
    heartbeatSeconds: seconds(0.05, 300),
    nodeTimeoutSeconds: seconds(0.2, 3600),
    /** A node runs sessions only while its lease (renewed by each heartbeat) holds (src/cluster/lease.ts). */
    leaseSeconds: seconds(0.1, 3600),
    /** Peers wait this much longer than a lease before taking a silent node for dead. */
    clockSkewSeconds: seconds(0, 600),
    /** Bound on reaching another node for a create (and on connecting a relay). */
    placementTimeoutMs: z.coerce
      .number<string | number>({ error: "must be a number of milliseconds" })
      .int()
      .min(50, "must be at least 50 ms")
      .max(60_000, "must be at most 60000 ms"),
  }),
  /** After SIGTERM, how long running sessions may go on before they end with node_shutdown. */
  drainSeconds: seconds(0, 86_400),
  /** Bearer token that `GET /metrics` requires; unset = open (keep it off the public network then). */
  metricsToken: z.string().min(16, "must be at least 16 characters").optional(),
  /** Proxies (CIDRs) whose X-Forwarded-For / Forwarded name the client; none = those headers are ignored. */
  trustedProxies: z.array(z.string().refine((s) => parseCidr(s) !== null, "must be a CIDR (10.0.0.0/8) or an IP address")),
  /** Most live sessions one workspace holds at once, cluster-wide (a workspace's max_sessions overrides it); unset = no cap. */
  workspaceMaxSessions: z.coerce
    .number<string | number>({ error: "must be a whole number" })
    .int("must be a whole number")
    .min(1, "must be at least 1")
    .optional(),
  /** The longest a session may live (a workspace's max_session_seconds overrides it, within the same ceiling). */
  maxSessionSeconds: z.coerce
    .number<string | number>({ error: "must be a whole number of seconds" })
    .int("must be a whole number of seconds")
    .min(60, "must be at least 60 seconds")
    .max(SESSION_SECONDS_CEILING, `must be at most ${SESSION_SECONDS_CEILING} seconds (24 hours)`),
  /** Most sessions one workspace may have waiting in the admission queue (services/sessions/queue). */
  workspaceMaxQueued: z.coerce.number<string | number>({ error: "must be a whole number" }).int("must be a whole number").min(1, "must be at least 1"),
  /** Most sessions waiting in the admission queue across the deployment. */
  maxQueued: z.coerce.number<string | number>({ error: "must be a whole number" }).int("must be a whole number").min(1, "must be at least 1"),
  database: z.object({
    url: z
      .string()
      .regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL")
      .optional(),
    dataDir: z.string().min(1),
  }),
  redis: z.object({
    url: z
      .string()
      .regex(/^rediss?:\/\//, "must be a redis:// or rediss:// URL")
      .optional(),
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
  nodeId: z
    .string()
    .min(1)
    .max(128)
    .regex(/^[A-Za-z0-9._-]+$/, "letters, digits, dots, dashes and underscores"),
  browser: BrowserConfigSchema,
  profiles: z.object({
    /** Largest profile document (cookies and storage), in bytes; capped by the import route's body limit. */
    maxBytes: byteCount(1024, "must be at least 1024", PROFILE_MAX_BYTES_CEILING, `must be at most ${PROFILE_MAX_BYTES_CEILING} (16 MiB)`),
  }),
  /** Each workspace's extensions (services/extensions), reserved atomically at upload across nodes. */
  extensions: z.object({
    /** Most extensions one workspace may store. */
    maxPerWorkspace: z.coerce.number<string | number>().int("must be a whole number").min(0, "must be 0 or more").max(100_000),
    /** Most bytes of extension zips (as uploaded) one workspace may store. */
    maxBytesPerWorkspace: byteCount(0, "must be 0 or more", 1024 * 1024 * 1024 * 1024, "must be at most 1099511627776 (1 TiB)"),
  }),
  /** Sessions' logs (services/session-logs): on by default, bounded per session, kept for a while. */
  logs: z.object({
    enabled: z.boolean(),
    maxEntries: z.coerce.number<string | number>().int("must be a whole number").min(100, "must be at least 100").max(1_000_000),
    maxBytes: byteCount(64 * 1024, "must be at least 65536", 256 * 1024 * 1024),
    retentionDays: z.coerce.number<string | number>().min(0.0001, "must be more than 0").max(3650),
  }),
  /** Sessions' screen recordings (services/recordings): opt-in per session unless enabled here. */
  recording: z.object({
    enabled: z.boolean(),
    retentionDays: z.coerce.number<string | number>().min(0.0001, "must be more than 0").max(3650),
    ffmpegPath: z.string().min(1).optional(),
  }),
  /** Webhook deliveries (services/webhooks): the first retry's delay, doubled after each failed attempt. */
  webhooks: z.object({
    retryBaseMs: z.coerce
      .number<string | number>({ error: "must be a whole number of milliseconds" })
      .int("must be a whole number of milliseconds")
      .min(10, "must be at least 10")
      .max(3_600_000),
    /** Addresses (CIDRs) and host names deliveries may reach beyond the public internet (not the browsers' egress list). */
    allow: z.array(z.string().min(1)),
  }),
  /** Outgoing mail (dashboard sign-in links, invitations). Without an SMTP host, mails go to the log. */
  mail: z.object({
    from: z
      .string()
      .trim()
      .min(3)
      .max(320)
      .regex(/^[^\r\n]*@[^\r\n]*$/, "must be a mail address, optionally with a display name"),
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
  /** `auto`: human lines on a terminal, JSON otherwise (src/console-log.ts). */
  logFormat: z.enum(["auto", "json", "pretty"], { error: "must be auto, json or pretty" }),
});

export type Config = Readonly<z.infer<typeof ConfigSchema>>;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
  }
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
      return commaList(raw);
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

  const raw: Record<string, unknown> = {
    database: {},
    redis: {},
    dashboard: { api: {} },
    browser: {},
    profiles: {},
    extensions: {},
    cluster: {},
    logs: {},
    recording: {},
    webhooks: {},
  };
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
      problems.push(
        `${origin.get("cluster.nodeTimeoutSeconds") ?? "VESSEL_NODE_TIMEOUT_SECONDS"}: must be at least twice the heartbeat (${cluster.heartbeatSeconds} s)`,
      );
    }
    // Fencing (src/cluster/lease.ts): a node cut off from the database must have stopped serving its
    // sessions before any peer may end them, so the timeout peers apply exceeds the lease plus a margin.
    if (cluster.nodeTimeoutSeconds <= cluster.leaseSeconds + cluster.clockSkewSeconds) {
      problems.push(
        `VESSEL_NODE_TIMEOUT_SECONDS (${cluster.nodeTimeoutSeconds} s) must be greater than VESSEL_LEASE_SECONDS (${cluster.leaseSeconds} s) + VESSEL_CLOCK_SKEW_SECONDS (${cluster.clockSkewSeconds} s): ` +
          "a node cut off from the database must stop serving its sessions before a peer may end them",
      );
    }
    if (cluster.leaseSeconds < 2 * cluster.heartbeatSeconds) {
      problems.push(
        `${origin.get("cluster.leaseSeconds") ?? "VESSEL_LEASE_SECONDS"}: must be at least twice the heartbeat (${cluster.heartbeatSeconds} s), so one late heartbeat does not cost the lease`,
      );
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

/** The version in package.json, reported by health checks. */
export const version: string = JSON.parse(fs.readFileSync(new URL("../package.json", import.meta.url), "utf8")).version;
