// The settings of this node's browsers: how many, how they are launched, jailed and relayed, what their
// sessions may reach, download and upload. The largest area by far, so a file of its own;
// src/settings.ts lists them in their place among every setting.
import os from "node:os";
import type { Setting } from "./settings-shape.ts";

export const browserSettings: readonly Setting[] = [
  {
    key: "browser.executablePath",
    env: "VESSEL_CHROMIUM_PATH",
    kind: "string",
    description: "Chromium binary; default: the headless shell, else Debian's chromium",
  },
  {
    key: "browser.capacity",
    env: "VESSEL_BROWSER_CAPACITY",
    kind: "number",
    description: "Most browsers (sessions) this node runs at once; default from memory (about 320 MB each)",
    fallback: () => defaultCapacity(),
  },
  {
    key: "browser.warm",
    env: "VESSEL_BROWSER_WARM",
    kind: "number",
    description: "Spare browsers kept launched so a session starts without waiting",
    fallback: () => 1,
  },
  {
    key: "browser.warmMax",
    env: "VESSEL_WARM_POOL_MAX",
    kind: "number",
    description:
      "Most spare browsers kept while recent demand (the last 3 minutes' bursts, a steady stream of starts) needs more than `browser.warm` (not when that is 0); only within free slots and while 1 GiB of memory stays available (about 256 MB per spare)",
    fallback: () => 8,
  },
  {
    key: "browser.egressAllow",
    env: "VESSEL_EGRESS_ALLOW",
    kind: "list",
    description:
      "What sessions may reach besides the public internet: CIDRs (`10.1.0.0/16`) and host names (`intranet.example`, `*.corp.example`), comma-separated; loopback, private, link-local and metadata addresses are refused otherwise",
    fallback: () => [],
  },
  {
    key: "browser.downloadMaxBytes",
    env: "VESSEL_DOWNLOAD_MAX_BYTES",
    kind: "number",
    description: "Most bytes one session's downloads may take together; a download that would pass it is cancelled and deleted. 0 = no downloads",
    fallback: () => 256 * 1024 * 1024,
  },
  {
    key: "browser.pingSeconds",
    env: "VESSEL_BROWSER_PING_SECONDS",
    kind: "number",
    description: "How often the watchdog pings each session's browser over CDP; 0 = never",
    fallback: () => 5,
  },
  {
    key: "browser.pingTimeoutSeconds",
    env: "VESSEL_BROWSER_PING_TIMEOUT_SECONDS",
    kind: "number",
    description: "A browser that has not answered a ping for this long is killed (its session fails with `browser_crash`)",
    fallback: () => 15,
  },
  {
    key: "browser.jail",
    env: "VESSEL_BROWSER_JAIL",
    kind: "string",
    description:
      "Jail each browser (bubblewrap: no view of this machine's files, no network but the egress listener): `auto` (when the kernel allows it, else a loud warning), `required` or `off`",
    fallback: () => "auto",
  },
  {
    key: "browser.uid",
    env: "VESSEL_BROWSER_UID",
    kind: "number",
    description:
      "First host uid of the range jailed browsers and recording encoders run as, one uid each (the next 65536 ids; used where the service may switch users, as root does). Give each node on one machine its own range; no account needs to exist",
    fallback: () => 2_000_000_000,
  },
  {
    key: "browser.gid",
    env: "VESSEL_BROWSER_GID",
    kind: "number",
    description: "First host gid of the same range (each jailed program's group is this plus the offset of its uid)",
    fallback: () => 2_000_000_000,
  },
  {
    key: "browser.scheduling",
    env: "VESSEL_BROWSER_SCHEDULING",
    kind: "string",
    description:
      "How the browsers' processes are scheduled: `batch` (Linux SCHED_BATCH: a browser waking up does not preempt the node's event loop) or `normal`",
    fallback: () => "batch",
  },
  {
    key: "browser.cdpRelay",
    env: "VESSEL_CDP_RELAY",
    kind: "string",
    description:
      "Where the sessions' CDP clients are relayed: `process` (a process of its own that owns the browsers' pipes, so a client's messages never wait for the API) or `inline` (the node's main thread)",
    fallback: () => "process",
  },
  {
    key: "browser.cdpRelayHosts",
    env: "VESSEL_CDP_RELAY_HOSTS",
    kind: "number",
    description:
      "How many relay host processes the browsers are spread over (with `process`): each relays the sessions of the browsers given to it, so one client's traffic holds up only the sessions sharing its host. Default: one per core, at most 4",
    fallback: () => Math.min(4, os.availableParallelism()),
  },
  {
    key: "browser.cdpPolicy",
    env: "VESSEL_CDP_POLICY",
    kind: "string",
    description: "The CDP method policy, `on` or `off`; `off` is for tests of the other isolation layers only",
    fallback: () => "on",
  },
  {
    key: "browser.cdpMaxMessageBytes",
    env: "VESSEL_CDP_MAX_MESSAGE_BYTES",
    kind: "number",
    description: "Largest CDP message a client may send, in bytes; a larger one closes its socket with 1009 (message too big)",
    fallback: () => 96 * 1024 * 1024,
  },
  {
    key: "browser.uploadMaxBytes",
    env: "VESSEL_UPLOAD_MAX_BYTES",
    kind: "number",
    description: "Most bytes of files uploaded into one session (POST /v1/sessions/{id}/files), one file or all together; 0 = no uploads",
    fallback: () => 100 * 1024 * 1024,
  },
  {
    key: "browser.uploadMaxFiles",
    env: "VESSEL_UPLOAD_MAX_FILES",
    kind: "number",
    description: "Most files uploaded into one session; one more is 413",
    fallback: () => 200,
  },
  {
    key: "browser.uploadMinFreeBytes",
    env: "VESSEL_UPLOAD_MIN_FREE_BYTES",
    kind: "number",
    description:
      "An upload is refused with 507 when the volume it lands on would keep less than this many bytes free (uploads in progress counted); 0 = no check",
    fallback: () => 1024 * 1024 * 1024,
  },
  {
    key: "browser.cdpMaxSocketsPerSession",
    env: "VESSEL_CDP_MAX_SOCKETS_PER_SESSION",
    kind: "number",
    description:
      "Most CDP WebSockets one session may have open at once (counted on the node that runs it, relayed ones included); one more is closed with 1008",
    fallback: () => 16,
  },
];

/** A Chromium costs about 320 MB here (research/browser-limits.md); keep a quarter of memory for everything else. */
export function defaultCapacity(): number {
  return Math.max(1, Math.min(200, Math.floor((os.totalmem() * 0.75) / (320 * 1024 * 1024))));
}
