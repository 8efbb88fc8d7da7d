import { ConfigError, loadConfig, type Config } from "./config.ts";
import { createApp } from "./app.ts";
import { installLastLineOfDefence } from "./last-line.ts";
import { provisionFirstKey } from "./services/api-keys/first-start.ts";
import { issueConsoleSignIn } from "./services/sign-ins/console-sign-in.ts";
import { consoleBanner, lastLine } from "./console-banner.ts";
import { openAdminSocket, type AdminSocket } from "./admin-socket.ts";

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

let config: Config;
try {
  config = loadConfig();
} catch (err) {
  if (err instanceof ConfigError) fail(err.message);
  throw err;
}

const app = await createApp(config).catch((err: Error) => fail(`Vessel could not start: ${err.message}`));
// `npm run sign-in-link` asks the running server for a fresh link through it (src/admin-socket.ts).
let adminSocket: AdminSocket | null = null;
// What a client's handling throws and nobody catches costs that client, not the node (src/last-line.ts).
installLastLineOfDefence(app.deps.log);
await app.start().catch((err: Error) => fail(`Vessel could not listen on ${config.host}:${config.port}: ${err.message}`));

// SIGTERM (Kubernetes, systemd, docker stop): drain first. The node turns unready at once, takes no
// new sessions, and lets running ones go on until they end or VESSEL_DRAIN_SECONDS pass; then what
// is left ends with node_shutdown, pending audit entries are written, and the process exits 0.
// SIGINT (Ctrl-C), or a second signal during a drain: stop now.
let stopping = false;
// A signal during the first start's writes (its key, the console sign-in link) waits for them: the
// database is closed under nothing.
let firstStart: Promise<void> = Promise.resolve();
const stop = () =>
  Promise.all([app.stop(), adminSocket?.close()]).then(
    () => process.exit(0),
    (err: unknown) => {
      app.deps.log.error({ err }, "shutdown failed");
      process.exit(1);
    },
  );
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, () => {
    if (stopping) {
      app.deps.log.info({ signal }, "stopping now");
      app.cutDrain();
      return;
    }
    stopping = true;
    if (signal === "SIGINT") {
      app.deps.log.info({ signal }, "shutting down");
      void firstStart.then(stop);
      return;
    }
    app.deps.log.info({ signal, drainSeconds: config.drainSeconds }, "draining, then shutting down");
    app.drain().then(
      () => firstStart.then(stop),
      (err: unknown) => {
        app.deps.log.error({ err }, "drain failed; shutting down");
        void firstStart.then(stop);
      },
    );
  });
}

async function greet(): Promise<void> {
  const dashboardUrl = `${config.publicBaseUrl}/dashboard/`;
  adminSocket = await openAdminSocket(app.deps, config.database.dataDir);
  if (config.database.url) {
    app.deps.log.info({ dashboardUrl }, "dashboard ready");
    return;
  }
  const file = await provisionFirstKey(app.deps, config.database.dataDir);
  if (file) app.deps.log.warn({ file }, 'first start: created workspace "default" and an API key, written to this file (export VESSEL_API_KEY=$(cat <file>))');
  // The link goes to stderr only, never through the logger: the log may be shipped elsewhere, the console is the operator's.
  const signIn = await issueConsoleSignIn(app.deps).catch((err: unknown) => {
    app.deps.log.error({ err }, "could not issue the console sign-in link");
    return null;
  });
  process.stderr.write(consoleBanner(dashboardUrl, signIn, file));
  app.deps.log.info(
    { dashboardUrl, consoleSignInExpiresAt: signIn?.expiresAt ?? null },
    signIn ? "dashboard ready; a one-time sign-in link was printed on the console (stderr)" : "dashboard ready",
  );
  // Again as the very last line of the start, under whatever the log printed after the banner.
  if (signIn) {
    // The log's own writes are buffered: flushed first, so the link really is the last line.
    await new Promise<void>((resolve) => app.deps.log.flush(() => resolve()));
    process.stderr.write(lastLine(signIn));
  }
}

// After the signal handlers, so a stop during the first start is still graceful.
firstStart = greet().catch((err: Error) => fail(`Vessel could not finish its first start: ${err.message}`));
