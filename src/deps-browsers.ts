// The browser pool, assembled: the jail probe, where the browsers' profiles live, and the egress and
// download policies whose verdicts become sessions' events. Apart from src/deps.ts (which wires
// everything else) because it is the one part that knows Chromium's launch, jail and relay settings.
import { createHash } from "node:crypto";
import os from "node:os";
import path from "node:path";
import { findChromium } from "./browser/launch/command.ts";
import { EgressPolicy, parseAllowlist } from "./browser/egress/policy.ts";
import type { DownloadNotice } from "./browser/downloads/download-guard.ts";
import type { EgressRefusal, EgressRoute } from "./browser/egress/shared.ts";
import { detectIsolation, type Isolation } from "./browser/jail/jail.ts";
import { BrowserPool } from "./browser/pool/pool.ts";
import { sharedRelayHost } from "./browser/cdp/relay/host.ts";
import type { Config } from "./config.ts";
import type { Logger } from "./logger.ts";
import type { EventRecorder } from "./services/session-events/event-recorder.ts";

/** Each browser's traffic is judged by the egress policy; refusals become the session's events. */
function egressFor(config: Config, events: EventRecorder) {
  return {
    policy: new EgressPolicy(parseAllowlist(config.browser.egressAllow)),
    onRefused: (route: EgressRoute, refusal: EgressRefusal) => {
      if (!route.sessionId) return;
      const rule = refusal.rule ? { rule: refusal.rule.rule, rule_list: refusal.rule.list, policy: refusal.rule.scope } : {};
      events.later(route.sessionId, "egress.refused", { host: refusal.host, port: refusal.port, reason: refusal.reason, ...rule });
    },
  };
}

/** Each session's downloads are kept to its folder and the cap; what happens to them becomes its events. */
function downloadsFor(config: Config, events: EventRecorder) {
  return {
    maxBytes: config.browser.downloadMaxBytes,
    onNotice: (sessionId: string, notice: DownloadNotice) => {
      const { download } = notice;
      void events.record(sessionId, notice.type, {
        download_id: download.id,
        name: download.name,
        bytes: download.bytes,
        ...(notice.type === "download.refused" ? { reason: notice.reason } : {}),
      });
    },
  };
}

/**
 * Where this node's browser profiles live: short (Chromium keeps a Unix socket under it, and socket
 * paths stop at 107 characters), throwaway (profiles never outlive their session), and stable per
 * data folder, so a restart finds and ends what a crashed run left there.
 */
export function browserDataRoot(config: Config): string {
  const digest = createHash("sha256").update(path.resolve(config.database.dataDir)).update(config.nodeId).digest("hex");
  return path.join(os.tmpdir(), `vessel-${digest.slice(0, 12)}`);
}

/**
 * Probed once per node by running one real jail (tens of ms), before anything is opened: `required`
 * refuses to start without it, `auto` logs loudly and runs unjailed. A process that starts no browsers
 * (scripts) needs no probe.
 */
export async function probeIsolation(config: Config, log: Logger, startBrowsers: boolean): Promise<Isolation> {
  return startBrowsers
    ? await detectIsolation(config.browser.jail, log.child({ component: "browsers" }), { uid: config.browser.uid, gid: config.browser.gid })
    : { level: "none", reason: "this process starts no browsers" };
}

/** This node's browsers, as configured; `browserPolicy: false` (benchmarks only) drops the egress, download and CDP policies. */
export function createBrowserPool(config: Config, log: Logger, events: EventRecorder, isolation: Isolation, browserPolicy?: boolean): BrowserPool {
  return new BrowserPool({
    executablePath: findChromium(config.browser.executablePath) ?? "",
    dataRoot: browserDataRoot(config),
    capacity: config.browser.capacity,
    warm: config.browser.warm,
    warmMax: config.browser.warmMax,
    log: log.child({ component: "browsers" }),
    ...(browserPolicy === false ? {} : { egress: egressFor(config, events), downloads: downloadsFor(config, events) }),
    cdpPolicy: browserPolicy !== false && config.browser.cdpPolicy === "on",
    logCapture: config.logs.enabled,
    isolation,
    scheduling: config.browser.scheduling,
    ...(config.browser.cdpRelay === "process" ? { relay: sharedRelayHost(log.child({ component: "relay" }), config.browser.cdpRelayHosts) } : {}),
  });
}
