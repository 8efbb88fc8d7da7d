// The browser launcher: a small Node.js process of its own that spawns each Chromium for the node
// (launcher.ts starts it and speaks to it over its IPC channel).
//
// Why a process of its own: on Linux, libuv starts a child by forking the parent, and the fork copies
// the parent's page tables while the parent's thread waits. The node holds several hundred MB, so
// each spawn froze its event loop for 20–45 ms (over 100 ms under load; docs/performance.md). This
// process holds a few tens of MB, so its forks are cheap, and they freeze nobody's loop but its own.
//
// Why plain JavaScript (.mjs) with no import from the app: it must start small and fast, without the
// TypeScript loader (tsx) and without the app's modules in its heap, which is the whole point.
//
// Protocol (one JSON message each way, handles attached where said):
//   node → launcher  { id, command, args, cwd, env, user? }   user: { uid, gid } to start it as
//   launcher → node  { ready: true }                         once, at start
//                    { id, error }                           the spawn failed (ENOENT, EACCES…)
//                    { id, pid }                             then three messages, each with a handle:
//                    { id, fd: 2 | 3 | 4 } + net.Socket      stderr, the CDP pipe's in and out
//                    { exit: pid, code, signal }             a browser's main process has exited
import { spawn } from "node:child_process";

// The node's shutdown closes its browsers; a Ctrl-C or SIGTERM sent to the whole process group must
// not take this process away first (the node would then learn of those exits only by polling).
process.on("SIGINT", () => {});
process.on("SIGTERM", () => {});
// The node has gone (exited, crashed or was killed): nothing is left to launch for. The browsers
// stay: they are detached, and the node's shutdown and its next start's orphan sweep deal with them.
process.on("disconnect", () => process.exit(0));

process.on("message", (request) => {
  const { id, command, args, cwd, env, user } = request;
  let child;
  try {
    // Exactly the spawn the node made itself before: its own session and process group (one
    // kill(-pid) reaches every process of the browser); fd 3 and 4 are --remote-debugging-pipe.
    // As a jail's own host user when given (libuv drops the supplementary groups with it).
    child = spawn(command, args, {
      cwd,
      env,
      ...(user ? { uid: user.uid, gid: user.gid } : {}),
      detached: true,
      stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"],
    });
  } catch (err) {
    process.send({ id, error: String(err?.message ?? err) });
    return;
  }
  // Node starts reading a child's pipes at once, and a pipe end handed over keeps reading into a
  // no-op until the node acknowledges it: Chromium's first stderr lines would be lost here. No read
  // has happened yet (reads only happen when the event loop polls), so stop them now.
  for (const fd of [2, 3, 4]) child.stdio[fd]?._handle?.readStop();
  child.once("error", (err) => process.send({ id, error: String(err?.message ?? err) }));
  child.once("spawn", () => {
    process.send({ id, pid: child.pid });
    // Each send closes this process's copy of the pipe end once the node has it, so the node
    // sees the end of the pipe when the browser dies, as it did when it spawned the browser itself.
    for (const fd of [2, 3, 4]) process.send({ id, fd }, child.stdio[fd]);
  });
  child.once("exit", (code, signal) => {
    if (child.pid !== undefined && process.connected) process.send({ exit: child.pid, code, signal });
  });
});

process.send({ ready: true });
