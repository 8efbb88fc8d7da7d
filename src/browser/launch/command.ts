// Which Chromium to run and how: the executable, its flags and its environment (the jail wraps this command).
import fs from "node:fs";
import path from "node:path";

export const HEADLESS_SHELL = "/usr/lib/chromium/chromium-headless-shell";
export const FULL_CHROMIUM = "/usr/lib/chromium/chromium";

export function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/**
 * The configured binary when it is executable, else Debian's headless shell, else full Chromium.
 * Never Debian's /usr/bin/chromium wrapper script: it adds a shell, a broken /dev/shm check, and
 * an extra process between us and the browser's process group (a configured one was already
 * followed to its binary when the configuration was read: chromium-binary.ts).
 */
export function findChromium(configured?: string): string | undefined {
  if (configured && isExecutable(configured)) return configured;
  return [HEADLESS_SHELL, FULL_CHROMIUM].find(isExecutable);
}

/** The headless shell takes `--headless`; full Chromium needs `--headless=new`. */
export function isHeadlessShell(executablePath: string): boolean {
  return path.basename(executablePath).includes("headless-shell");
}

/** Whether browsers of this binary can load extensions: full Chromium can; the headless shell has no extension system. */
export function extensionSupport(executablePath: string): { ok: true } | { ok: false; why: string } {
  return isHeadlessShell(executablePath)
    ? {
        ok: false,
        why: `this node runs Chromium's headless shell (${executablePath}), which has no extension system; run full Chromium (VESSEL_CHROMIUM_PATH=/usr/lib/chromium/chromium)`,
      }
    : { ok: true };
}

/** Server-chosen flags, never a caller's. */
export function chromiumArgs(executablePath: string, profileDir: string, extraArgs: string[] = []): string[] {
  const args = [
    isHeadlessShell(executablePath) ? "--headless" : "--headless=new",
    // fds 3 and 4 instead of a TCP port: no other process can connect to the browser.
    "--remote-debugging-pipe",
    `--user-data-dir=${profileDir}`,
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--disable-gpu",
    "--disable-crash-reporter",
    "--disable-breakpad",
    "--mute-audio",
    "--hide-scrollbars",
    "--password-store=basic",
    "--use-mock-keychain",
    // The omnibox WebUI popups cost a renderer (~52 MiB) per window in full Chromium 156's headless
    // mode; the spare renderer is never used by a CDP-driven browser.
    "--disable-features=Translate,MediaRouter,OptimizationHints,SpareRendererForSitePerProcess,WebUIOmniboxPopup,WebUIOmniboxAimPopup,WebUIOmniboxFullPopup",
  ];
  // Full Chromium can load a session's extensions over the pipe (Extensions.loadUnpacked, the node's
  // own channel only: the CDP policy refuses the Extensions domain to clients). The headless shell
  // has no extension system at all.
  if (!isHeadlessShell(executablePath)) args.push("--enable-unsafe-extension-debugging");
  // Chromium refuses to start as root with its sandbox; elsewhere keep the sandbox.
  if (process.getuid?.() === 0) args.push("--no-sandbox");
  args.push(...extraArgs, "about:blank");
  return args;
}

/**
 * A minimal environment: nothing of ours (database URL, master key) reaches the browser, and every
 * place Chromium or its libraries write to (HOME, XDG_*, TMPDIR) is inside the browser's folder.
 */
export function chromiumEnv(dir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
    HOME: path.join(dir, "home"),
    XDG_CONFIG_HOME: path.join(dir, "config"),
    XDG_CACHE_HOME: path.join(dir, "cache"),
    XDG_DATA_HOME: path.join(dir, "data"),
    XDG_STATE_HOME: path.join(dir, "data"),
    TMPDIR: path.join(dir, "tmp"),
  };
  for (const name of ["LANG", "LC_ALL", "TZ", "FONTCONFIG_PATH"]) {
    if (process.env[name]) env[name] = process.env[name];
  }
  return env;
}
