import { CdpClient } from "../cdp/pipe/client.ts";
import type { CdpPipe } from "../cdp/pipe/pipe.ts";

/**
 * What a session's create may set about its browser (POST /v1/sessions `browser`), applied by the
 * node over a CDP channel of its own to every target the browser has or opens: pages and their
 * out-of-process frames, and workers (dedicated, shared, service). Auto-attach with
 * waitForDebuggerOnStart holds each new target until its overrides are sent, so no page script runs
 * before them; the client's own CDP attachment never sees this channel and cannot detach it.
 *
 * Applied to a warm spare as its session starts (no relaunch: a launch costs ~100 ms, this a few
 * round trips on the pipe); nothing here needs Chromium flags.
 */
export interface BrowserSettings {
  viewport?: { width: number; height: number; deviceScaleFactor?: number; mobile?: boolean };
  userAgent?: string;
  /** BCP 47, for example `fr-CH`: navigator.language(s), Accept-Language and Intl's default locale. */
  locale?: string;
  /** IANA zone, for example `Europe/Zurich`. */
  timezone?: string;
  geolocation?: { latitude: number; longitude: number; accuracy?: number };
}

type TargetInfo = { targetId: string; type: string; url: string };
const AUTO_ATTACH = { autoAttach: true, waitForDebuggerOnStart: true, flatten: true };
const WORKERS = new Set(["worker", "shared_worker", "service_worker"]);

/** `fr-CH` → `fr-CH,fr` (Chromium adds the q-values: `fr-CH,fr;q=0.9`), as a browser set to that language. */
export function acceptLanguageOf(locale: string): string {
  const base = locale.split("-")[0]!;
  return base && base !== locale ? `${locale},${base}` : locale;
}

/**
 * Starts applying `settings` to the browser behind `pipe`. Resolves once every target the browser
 * already has is set (so the spare's first tab is ready before the create is answered); targets it
 * opens later are set as they appear. `close()` stops (the browser's own end closes it too).
 */
export async function applyBrowserSettings(pipe: CdpPipe, settings: BrowserSettings): Promise<{ close(): void }> {
  const cdp = await CdpClient.open(pipe);
  try {
    // The browser's own user agent, when only the language changes (the override needs one).
    const userAgent = settings.userAgent ?? (settings.locale ? (await cdp.send<{ userAgent: string }>("Browser.getVersion")).userAgent : undefined);
    const perTarget = commandsFor(settings, userAgent);
    const pending = new Set<Promise<unknown>>();
    cdp.on("Target.attachedToTarget", (p: { sessionId: string; targetInfo: TargetInfo; waitingForDebugger: boolean }) => {
      const kind = WORKERS.has(p.targetInfo.type) ? "worker" : p.targetInfo.type === "page" || p.targetInfo.type === "iframe" ? "page" : "other";
      // Sent one after the other without waiting: Chromium runs a session's commands in order, and
      // the target resumes only after them (its last command), having met every override.
      const sent = [
        ...(kind === "other" ? [] : perTarget[kind].map(([method, params]) => cdp.send(method, params, p.sessionId).catch(() => {}))),
        kind === "other" ? Promise.resolve() : cdp.send("Target.setAutoAttach", AUTO_ATTACH, p.sessionId).catch(() => {}),
        p.waitingForDebugger ? cdp.send("Runtime.runIfWaitingForDebugger", {}, p.sessionId).catch(() => {}) : Promise.resolve(),
      ];
      const all = Promise.all(sent);
      pending.add(all);
      void all.finally(() => pending.delete(all));
    });
    if (settings.geolocation) await cdp.send("Browser.grantPermissions", { permissions: ["geolocation"] });
    // Attaching answers only after an attachedToTarget event for each existing target has been sent.
    await cdp.send("Target.setAutoAttach", AUTO_ATTACH);
    await Promise.all([...pending]);
    return { close: () => cdp.close() };
  } catch (err) {
    cdp.close();
    throw err;
  }
}

type Command = [method: string, params: object];

/** The commands each kind of target gets; Emulation is a page domain, workers take what they know. */
function commandsFor(s: BrowserSettings, userAgent: string | undefined): { page: Command[]; worker: Command[] } {
  const ua: Command[] = userAgent
    ? [["Emulation.setUserAgentOverride", { userAgent, ...(s.locale ? { acceptLanguage: acceptLanguageOf(s.locale) } : {}) }]]
    : [];
  const shared: Command[] = [
    ...(s.locale ? [["Emulation.setLocaleOverride", { locale: s.locale }] as Command] : []),
    ...(s.timezone ? [["Emulation.setTimezoneOverride", { timezoneId: s.timezone }] as Command] : []),
  ];
  const page: Command[] = [
    ...ua,
    ...shared,
    ...(s.viewport
      ? [
          [
            "Emulation.setDeviceMetricsOverride",
            { width: s.viewport.width, height: s.viewport.height, deviceScaleFactor: s.viewport.deviceScaleFactor ?? 1, mobile: s.viewport.mobile ?? false },
          ] as Command,
        ]
      : []),
    ...(s.viewport?.mobile ? [["Emulation.setTouchEmulationEnabled", { enabled: true, maxTouchPoints: 5 }] as Command] : []),
    ...(s.geolocation
      ? [
          [
            "Emulation.setGeolocationOverride",
            { latitude: s.geolocation.latitude, longitude: s.geolocation.longitude, accuracy: s.geolocation.accuracy ?? 10 },
          ] as Command,
        ]
      : []),
  ];
  // A worker has no Emulation of its user agent: its network layer's does both the header and navigator.
  const worker: Command[] = [
    ...(userAgent ? [["Network.setUserAgentOverride", { userAgent, ...(s.locale ? { acceptLanguage: acceptLanguageOf(s.locale) } : {}) }] as Command] : []),
    ...shared,
  ];
  return { page, worker };
}
