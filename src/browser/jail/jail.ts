import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import type { Logger } from "../../logger.ts";
import { FORWARDER_PL } from "./forwarder.ts";
import { cannotSwitchUsers, handOver, JAIL_USER_RANGE, JailUsers, setJailUsers, type JailUser } from "./users.ts";

/**
 * A jail per Chromium (docs/threat-model.md, layer 3), built with bubblewrap (Debian `bubblewrap`):
 *
 * - Namespaces: its own user, mount, pid, ipc, uts, cgroup and network namespaces. The browser sees
 *   only the files bound below (no data folder, no master key, no other browser's folder), only its
 *   own processes, and only its own loopback: no route to this machine or any network.
 * - Inside it runs as an unprivileged uid with no capabilities, so Chromium keeps its own sandbox
 *   (renderers in further namespaces under seccomp) even when Vessel runs as root: never pass
 *   --no-sandbox to a jailed browser. Outside, that uid is the host user bwrap was started as: one
 *   of its own from the jail users' range (users.ts) when Vessel may switch users, else Vessel's.
 * - The only way out is the browser's egress listener (browser/egress/proxy.ts), a Unix socket bound into the
 *   jail: a forwarder (forwarder.ts, Debian's perl) started inside turns 127.0.0.1:JAIL_PROXY_PORT
 *   of the jail's loopback into connections to that socket, and Chromium's --proxy-server points
 *   there. Every connection is then judged by the egress policy on this side, as for an unjailed browser.
 */

export type JailMode = "auto" | "required" | "off";

export interface Isolation {
  level: "jail" | "none";
  /** Why there is no jail (level "none"). */
  reason?: string;
}

/** The SOCKS5 port a jailed Chromium uses: each jail has its own loopback, so all share one number. */
export const JAIL_PROXY_PORT = 1080;
/** Where the egress listener's socket appears inside the jail. */
const JAIL_EGRESS_SOCKET = "/run/vessel/egress.sock";
/** Chromium's user inside the jail. Anything but 0: Chromium refuses its sandbox as root. */
const JAIL_ID = "1000";

const BWRAP = ["/usr/bin/bwrap", "/usr/local/bin/bwrap"];
/** Under /usr on purpose: /usr is what the jail sees, so the forwarder's interpreter must live there. */
const PERL = ["/usr/bin/perl"];

const executable = (candidates: string[]) =>
  candidates.find((file) => {
    try {
      fs.accessSync(file, fs.constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });

/**
 * Each path as it is on this machine: a symlink stays a symlink (its target is under /usr, which the
 * jail has), anything else is bound read-only, a missing one is left out. /bin, /lib, /lib64 and
 * /sbin are symlinks into /usr on merged-/usr systems (Debian 12). /etc/localtime must stay a
 * symlink: ICU names the time zone from its target, and given a plain file it compares it with
 * every file under /usr/share/zoneinfo instead (full Chromium took ~0.8 s longer to start).
 * Read once: they do not change while we run.
 */
let hostEntries: string[] | undefined;
function asOnHost(): string[] {
  hostEntries ??= ["/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc/localtime"].flatMap((file) => {
    const stat = fs.lstatSync(file, { throwIfNoEntry: false });
    if (stat?.isSymbolicLink()) return ["--symlink", fs.readlinkSync(file), file];
    return stat ? ["--ro-bind", file, file] : [];
  });
  return hostEntries;
}

/**
 * Run by /bin/sh inside the jail before it becomes Chromium (`exec "$@"`): the forwarder
 * (forwarder.ts; its source is "$1", so it needs no quoting and no file in the jail), with the
 * CDP pipe's fds 3 and 4 closed for it (only Chromium may hold them, so the pipe ends when Chromium
 * does). It returns once it listens (its listening half stays behind), so Chromium's first
 * connection cannot be refused. Before, a shell loop polled /proc/net/tcp until socat listened,
 * spinning on a busy CPU. A jail running /bin/true (medians of 27, three runs at load 8–9): socat and
 * that loop 43–81 ms, this forwarder 40–76 ms, no forwarder at all 12–33 ms.
 */
const forwarder = (perl: string) =>
  [
    `${perl} -e "$1" ${JAIL_PROXY_PORT} ${JAIL_EGRESS_SOCKET} 3>&- 4>&- </dev/null || { echo "vessel: the egress forwarder did not start" >&2; exit 70; }`,
    "shift",
    `exec "$@"`,
  ].join("\n");

export interface JailOptions {
  executablePath: string;
  args: string[];
  /** The browser's own folder: bound read-write at the same path, so every path in `args` holds inside. */
  dir: string;
  /** The egress listener's Unix socket; without it the browser has no network at all. */
  egressSocket?: string;
  /** More host paths the program needs to read, bound read-only when they exist (ffmpeg: /etc/alternatives, where Debian links BLAS). */
  readOnly?: string[];
}

/**
 * The command line that runs `executablePath args…` jailed. Spawn it as Chromium would be spawned
 * (same environment, cwd, detached, fds 3 and 4 for --remote-debugging-pipe): bwrap passes the
 * environment and every inherited fd through, and every process in the jail stays in the spawned
 * process's group, so kill(-pid) still ends them all. If bwrap itself dies, --die-with-parent kills
 * the jail's init, and the kernel then kills everything left in its pid namespace.
 */
export function jailedCommand(opts: JailOptions): { command: string; args: string[] } {
  const bwrap = executable(BWRAP);
  if (!bwrap) throw new Error("bubblewrap (bwrap) is not installed");
  const dir = path.resolve(opts.dir);
  // As root, --unshare-all would skip the user namespace (it only "tries"); the jail needs it.
  const args = ["--unshare-all", "--unshare-user", "--die-with-parent", "--uid", JAIL_ID, "--gid", JAIL_ID, "--cap-drop", "ALL"];
  // No --new-session: the spawn is detached (setsid), so there is no terminal to inject input into,
  // and a new session inside would take Chromium out of the process group we kill.
  args.push("--hostname", "vessel-browser");
  args.push("--ro-bind", "/usr", "/usr", ...asOnHost());
  // What Chromium reads outside /usr: the loader cache, fonts (and their prebuilt cache: without it
  // every launch rebuilds it), the CPU count (else glibc guesses from /proc), and full Chromium's
  // managed policies (deploy/Dockerfile). Not /etc/passwd, /etc/hosts or resolv.conf: names are
  // resolved by the egress listener.
  for (const file of [
    "/etc/ld.so.cache",
    "/etc/fonts",
    "/var/cache/fontconfig",
    "/sys/devices/system/cpu",
    "/etc/chromium/policies",
    ...(opts.readOnly ?? []),
  ]) {
    args.push("--ro-bind-try", file, file);
  }
  // A fresh /proc (this pid namespace only), a minimal /dev with a private /dev/shm, a private /tmp.
  args.push("--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp");
  args.push("--bind", dir, dir);
  // Files uploaded into the session (a browser folder's `uploads`) are written by Vessel alone: read
  // only in here, and a mount point the jail cannot rename or replace with a link to elsewhere.
  args.push("--ro-bind-try", path.join(dir, "uploads"), path.join(dir, "uploads"));
  // Chromium's own sandbox must stay on in here, whatever the caller's flags say.
  const browserArgs = opts.args.filter((a) => a !== "--no-sandbox");
  if (!opts.egressSocket) return { command: bwrap, args: [...args, "--", opts.executablePath, ...browserArgs] };

  const perl = executable(PERL);
  if (!perl) throw new Error("perl is not installed (the jail's egress forwarder; Debian's perl-base)");
  args.push("--ro-bind", path.resolve(opts.egressSocket), JAIL_EGRESS_SOCKET);
  const script = forwarder(perl);
  return { command: bwrap, args: [...args, "--", "/bin/sh", "-c", script, "vessel-jail", FORWARDER_PL, opts.executablePath, ...browserArgs] };
}

const PROBE_TIMEOUT_MS = 10_000;

/**
 * Runs one jail as the browsers will get it (same flags, forwarder included) around a check that
 * the jail can nest the namespaces Chromium's sandbox makes (unshare), then connects through the
 * forwarder to a probe socket and reads its answer. Resolves with the reason it cannot, or undefined when it works.
 */
async function probe(users: JailUsers): Promise<string | undefined> {
  if (!executable(BWRAP)) return "bubblewrap (bwrap) is not installed";
  if (!executable(PERL)) return "perl is not installed";
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "vessel-jail-"));
  // As the browsers will be: a user of its own, which owns the folder and may use the socket.
  const user = users.take();
  const socketPath = path.join(dir, "probe.sock");
  let reached = false;
  // It answers and hangs up; the check reads until then, so the jail (and its forwarder) cannot be
  // torn down before the connection has arrived here.
  const server = net.createServer((s) => {
    reached = true;
    s.end("ok");
  });
  try {
    await new Promise<void>((resolve, reject) => server.once("error", reject).listen(socketPath, resolve));
    handOver([dir, socketPath], user);
    const check = [
      "if command -v unshare >/dev/null; then unshare --user --pid --net --fork /bin/true || exit 71; fi",
      // Connects through the forwarder and reads until the probe socket hangs up.
      `exec ${executable(PERL)} -MIO::Socket::INET -e 'my $s = IO::Socket::INET->new("127.0.0.1:${JAIL_PROXY_PORT}") or exit 72; 1 while sysread($s, my $b, 4096); exit 0'`,
    ].join("\n");
    const { command, args } = jailedCommand({ executablePath: "/bin/sh", args: ["-c", check], dir, egressSocket: socketPath });
    const child = spawn(command, args, { cwd: dir, stdio: ["ignore", "ignore", "pipe"], env: { PATH: "/usr/bin:/bin" }, ...user });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill("SIGKILL"), PROBE_TIMEOUT_MS);
    const code = await new Promise<number | null>((resolve) => {
      child.once("error", () => resolve(-1));
      child.once("close", (c) => resolve(c));
    });
    clearTimeout(timer);
    const said = stderr.trim().split("\n").slice(-3).join(" / ");
    if (code === 71) return `the jail cannot create the namespaces Chromium's own sandbox needs${said ? `: ${said}` : ""}`;
    if (code === 72) return `nothing in the jail could connect through its egress forwarder${said ? `: ${said}` : ""}`;
    if (code !== 0) return `bwrap failed (exit ${code})${said ? `: ${said}` : ""}`;
    if (!reached) return "the jail's egress forwarder did not reach the egress socket";
    return undefined;
  } catch (err) {
    return `the jail could not be tried: ${(err as Error).message}`;
  } finally {
    server.close();
    fs.rmSync(dir, { recursive: true, force: true });
    users.release(user); // the jail's processes are gone: its init ended with the check
  }
}

const FIX =
  "Install bubblewrap (apt-get install bubblewrap; perl, the jail's forwarder, is part of every Debian), allow unprivileged user namespaces " +
  "(sysctl kernel.unprivileged_userns_clone=1, user.max_user_namespaces > 0; on Ubuntu 24.04 also kernel.apparmor_restrict_unprivileged_userns=0), " +
  "and in a container allow unshare and a fresh /proc (seccomp and AppArmor unconfined, Docker --security-opt systempaths=unconfined, " +
  "Kubernetes procMount: Unmasked, see deploy/kubernetes), or run the deploy/Dockerfile image.";

/**
 * Who jailed programs run as on this host (users.ts), set for the whole process: a user of their
 * own from `range` when this process may switch users, else this process's own (said loudly).
 */
function chooseJailUsers(range: JailUser | undefined, log: Logger): JailUsers {
  const own = process.getuid?.();
  if (range && own !== undefined && own >= range.uid && own < range.uid + JAIL_USER_RANGE) {
    throw new Error(
      `VESSEL_BROWSER_UID: the range ${range.uid}–${range.uid + JAIL_USER_RANGE - 1} holds this service's own uid (${own}); jailed browsers must never run as it`,
    );
  }
  const cannot = range ? cannotSwitchUsers(range) : "no range of jail users is configured";
  if (cannot) {
    log.warn(
      { jailUsers: "service", uid: own, reason: cannot },
      `jailed browsers run as THIS SERVICE'S OWN USER (uid ${own}) outside their jails, because ${cannot}: one that escaped its jail could read everything this user can ` +
        "(the data folder, other sessions' folders). Run the service as root (it then starts each jail as a uid of its own from VESSEL_BROWSER_UID), " +
        "or give it CAP_SETUID, CAP_SETGID and CAP_CHOWN (docs/threat-model.md)",
    );
  }
  const users = new JailUsers(cannot ? undefined : range);
  setJailUsers(users);
  return users;
}

/**
 * This node's isolation level, probed once at start. `required` throws when the jail does not work
 * here; `auto` falls back to no jail with a loud error in the log; `off` never jails. With `range`,
 * jails run as host users of their own (users.ts) where this process may switch users.
 */
export async function detectIsolation(mode: JailMode, log: Logger, range?: JailUser): Promise<Isolation> {
  if (mode === "off") {
    setJailUsers(new JailUsers(undefined));
    const reason = "VESSEL_BROWSER_JAIL=off";
    log.warn(
      { isolation: "none", reason },
      "browsers are NOT jailed (VESSEL_BROWSER_JAIL=off): only the CDP policy keeps sessions from this machine's files and loopback services; do not run untrusted sessions like this",
    );
    return { level: "none", reason };
  }
  const reason = await probe(chooseJailUsers(range, log));
  if (!reason) {
    log.info({ isolation: "jail" }, "browsers run jailed (bubblewrap: own filesystem view, processes and network)");
    return { level: "jail" };
  }
  if (mode === "required") throw new Error(`VESSEL_BROWSER_JAIL=required, but browsers cannot be jailed on this machine: ${reason}. ${FIX}`);
  log.error(
    { isolation: "none", reason },
    "BROWSERS ARE NOT JAILED: a session that gets past the CDP policy can read every file this user can (the data folder and its master key, " +
      `other sessions' profiles) and reach this machine's loopback services. ${FIX} Set VESSEL_BROWSER_JAIL=required to refuse to start instead.`,
  );
  return { level: "none", reason };
}
