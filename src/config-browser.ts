// The schema of the browser settings (settings-browser.ts): the largest part of the configuration, so
// a file of its own; src/config.ts places it under `browser`.
import { z } from "zod";
import { resolveChromiumBinary } from "./browser/launch/chromium-binary.ts";
import { byteCount } from "./config-sizes.ts";
import { seconds } from "./settings.ts";

/** A host id that starts a range of 65536 (src/browser/jail/users.ts): not root, within 32 bits. */
const jailId = () =>
  z.coerce
    .number<string | number>({ error: "must be a whole number" })
    .int("must be a whole number")
    .min(1, "must be at least 1 (never root)")
    .max(4_294_901_758, "must be at most 4294901758 (the range of 65536 must end below 2^32 - 1)");

export const BrowserConfigSchema = z.object({
  /** A distribution's launcher script (Debian's /usr/bin/chromium) is followed to its binary, or refused (chromium-binary.ts). */
  executablePath: z
    .string()
    .min(1)
    .transform((configured, ctx) => {
      const binary = resolveChromiumBinary(configured);
      if (binary.ok) return binary.path;
      ctx.addIssue({ code: "custom", message: binary.why });
      return z.NEVER;
    })
    .optional(),
  capacity: z.coerce.number<string | number>().int("must be a whole number").min(1, "must be at least 1").max(1000),
  warm: z.coerce.number<string | number>().int("must be a whole number").min(0).max(32),
  /** Most spares kept while demand asks for more than `warm` (within free slots and memory). */
  warmMax: z.coerce.number<string | number>().int("must be a whole number").min(0).max(64),
  /** Addresses (CIDRs) and host names sessions may reach beyond the public internet. */
  egressAllow: z.array(z.string().min(1)),
  /** Most bytes one session's downloads may take together (0 = downloads refused). */
  downloadMaxBytes: byteCount(0, "must be 0 or more"),
  /** Most bytes of files uploaded into one session, together (0 = uploads refused). */
  uploadMaxBytes: byteCount(0, "must be 0 or more", 4 * 1024 * 1024 * 1024, "must be at most 4294967296 (4 GiB)"),
  /** Most files uploaded into one session. */
  uploadMaxFiles: z.coerce.number<string | number>().int("must be a whole number").min(1, "must be at least 1").max(10_000, "must be at most 10000"),
  /** An upload is refused (507) when the volume it lands on would keep less than this free. */
  uploadMinFreeBytes: byteCount(0, "must be 0 or more", Number.MAX_SAFE_INTEGER, "must be a whole number of bytes"),
  /** Most CDP sockets one session may have open at once; one more is closed with 1008. */
  cdpMaxSocketsPerSession: z.coerce.number<string | number>().int("must be a whole number").min(1, "must be at least 1").max(1000, "must be at most 1000"),
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
  /** First host uid and gid of the range jailed programs run as (src/browser/jail/users.ts): never root, never the service. */
  uid: jailId(),
  gid: jailId(),
  /** `batch` runs every browser under SCHED_BATCH so its wake-ups do not preempt the node (src/browser/launch/scheduling.ts); `normal` does not. */
  scheduling: z.enum(["batch", "normal"], { error: "must be batch or normal" }),
  /** `process` relays CDP clients in a process of their own (src/browser/cdp/relay/host.ts); `inline` on the node's main thread. */
  cdpRelay: z.enum(["process", "inline"], { error: "must be process or inline" }),
  /** Relay host processes the browsers are spread over, the fewest-loaded first (src/browser/cdp/relay/host.ts). */
  cdpRelayHosts: z.coerce.number<string | number>().int("must be a whole number").min(1, "must be at least 1").max(16, "must be at most 16"),
  /** The CDP method policy; `off` exists for the isolation tests that check the other layers alone. */
  cdpPolicy: z.enum(["on", "off"], { error: "must be on or off" }),
  /**
   * Largest CDP message a client may send; a larger one closes its socket with 1009. At most
   * Chromium's own 100 MiB: its pipe closes (the whole browser's DevTools) on a larger message.
   */
  cdpMaxMessageBytes: byteCount(
    1024 * 1024,
    "must be at least 1048576 (1 MiB)",
    100 * 1024 * 1024,
    "must be at most 104857600 (100 MiB, Chromium's own limit)",
  ),
});
