import { randomBytes } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type net from "node:net";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { endSession } from "../../src/services/sessions/sessions.ts";
import {
  executableOf,
  isThisMachine,
  listeningTcpSockets,
  namespaceOf,
  observePages,
  processTree,
  RawCdp,
  secretsIn,
  startTrapListener,
  type CdpAnswer,
  type FrameView,
  type Secret,
  type TrapListener,
} from "../support/isolation.ts";
import { seedWorkspace, startTestApp, type Seeded, type TestApp } from "../support/app.ts";
import { createSession, eventually } from "../support/sessions.ts";
import { chromiumPath, servicesRequired } from "../support/services.ts";

const hasChromium = chromiumPath() !== undefined;
if (!hasChromium && servicesRequired) throw new Error("Chromium is required (VESSEL_REQUIRE_SERVICES=1) but not installed");

/**
 * Issue 17: a session cannot leave its browser. A tenant with an ordinary connect_url attacks its own
 * Chromium through the running server every way the issue lists — raw CDP (non-flat sessions and
 * messages inside strings), the protocol exposed to page script, direct navigations, uploads,
 * downloads, browser contexts with their own proxy, page script — and another session's browser.
 * Whatever gets through, no page (and no CDP answer) may ever show a host file (/etc/passwd, the
 * node's master key, a canary in the data folder, another session's folder), and a service on
 * 127.0.0.1 must never hear from a session.
 *
 * Everything runs twice: with the CDP policy on, where the policy must refuse the host-reaching
 * commands (a CDP error carrying the client's id, the connection staying up, a `cdp.refused` event),
 * and with it off (VESSEL_CDP_POLICY=off), where every command reaches Chromium (asserted, so the
 * run is not vacuous) and the jail and the missing DevTools port alone must hold.
 *
 * 127.0.0.2 plays a public site (the only address the egress policy allows); 127.0.0.1 is this
 * machine. Nothing here allows 127.0.0.1.
 */

const PASSWD = "file:///etc/passwd";
const FIXTURE_MARKER = "vessel-fixture-page";
const rand = () => randomBytes(8).toString("hex");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Script every fixture page carries: what a page does with the files it is given. */
const PAGE_SCRIPT = String.raw`
const readFile = (f) => new Promise((resolve) => {
  const r = new FileReader();
  r.onload = () => resolve("read: " + r.result);
  r.onerror = () => resolve("failed: " + r.error);
  r.readAsText(f);
});
window.readInput = () => {
  const f = document.getElementById("file").files[0];
  return f ? readFile(f) : Promise.resolve("no file");
};
window.dropped = [];
const zone = document.getElementById("drop");
zone.addEventListener("dragover", (e) => e.preventDefault());
zone.addEventListener("drop", (e) => {
  e.preventDefault();
  for (const f of e.dataTransfer.files) window.dropped.push(readFile(f));
});
window.readDropped = () => Promise.all(window.dropped).then((l) => (l.length ? l : ["nothing dropped"]));
`;

/**
 * What a hostile page does on its own, with its addresses in #cfg (served with the page, so no
 * CDP message carries them): every way page script has to a host file or to this machine, and,
 * when a DevTools binding was exposed to it, browser-level CDP of its own.
 */
const ATTACK_SCRIPT = String.raw`
const cfg = JSON.parse(document.getElementById("cfg").textContent);
const wait = (ms) => new Promise((r) => setTimeout(r, ms));
const frameDone = (el) => new Promise((r) => {
  el.addEventListener("load", () => r("load"), { once: true });
  el.addEventListener("error", () => r("error"), { once: true });
  setTimeout(() => r("no load event"), 3000);
});
const textOf = (doc) => (doc && doc.documentElement ? doc.documentElement.innerText : "");

window.pageAttack = async () => {
  const out = {};
  const tries = [];
  cfg.hostUrls.forEach((u, i) => {
    tries.push(fetch(u).then((r) => r.text(), (e) => "failed: " + e).then((v) => { out["fetch " + i] = v; }));
    tries.push(new Promise((res) => {
      const x = new XMLHttpRequest();
      x.onload = () => res(x.responseText);
      x.onerror = () => res("failed");
      try { x.open("GET", u); x.send(); } catch (e) { res("threw: " + e); }
    }).then((v) => { out["xhr " + i] = v; }));
    const frame = document.createElement("iframe");
    frame.src = u;
    document.body.append(frame);
    tries.push(frameDone(frame).then((how) => {
      try { out["iframe " + i] = how + ": " + textOf(frame.contentDocument); } catch (e) { out["iframe " + i] = how + ": " + e; }
    }));
    // location.href = in a frame of the page's own origin
    const own = document.createElement("iframe");
    own.src = "/blank";
    document.body.append(own);
    tries.push(frameDone(own).then(async () => {
      try { own.contentWindow.location.href = u; } catch (e) { out["frame location.href " + i] = "threw: " + e; return; }
      await frameDone(own);
      try { out["frame location.href " + i] = textOf(own.contentDocument); } catch (e) { out["frame location.href " + i] = "blocked: " + e; }
    }));
  });
  cfg.loopbackUrls.forEach((u, i) => {
    tries.push(fetch(u).then((r) => r.text(), (e) => "failed: " + e).then((v) => { out["fetch loopback " + i] = v; }));
    tries.push(fetch(u, { mode: "no-cors" }).then(() => "answered (opaque)", (e) => "failed: " + e).then((v) => { out["no-cors loopback " + i] = v; }));
    const frame = document.createElement("iframe");
    frame.src = u;
    document.body.append(frame);
    tries.push(frameDone(frame).then((how) => { out["iframe loopback " + i] = how; }));
    const img = new Image();
    tries.push(new Promise((r) => { img.onload = () => r("loaded"); img.onerror = () => r("error"); }).then((v) => { out["img loopback " + i] = v; }));
    img.src = u;
    try { out["beacon loopback " + i] = navigator.sendBeacon(u, "beacon"); } catch (e) { out["beacon loopback " + i] = "threw: " + e; }
  });
  cfg.loopbackWs.forEach((u, i) => {
    tries.push(new Promise((r) => {
      let s;
      try { s = new WebSocket(u); } catch (e) { return r("threw: " + e); }
      s.onopen = () => { r("open"); s.close(); };
      s.onerror = () => r("error");
      s.onclose = () => r("closed");
    }).then((v) => { out["websocket " + i] = v; }));
  });
  await Promise.all(tries);
  return out;
};

/** window.open of a host address (one per user gesture: a popup spends it). */
window.openHost = (i) => (window.open(cfg.hostUrls[i], "_blank") ? "opened" : "blocked");
window.openLoopback = (i) => (window.open(cfg.loopbackUrls[i], "_blank") ? "opened" : "blocked");
/** location.href = a host address, in a window of the page's own origin. */
window.navigateHost = async (i) => {
  const w = window.open("/blank", "_blank");
  if (!w) return "blocked";
  for (let k = 0; k < 60 && !(w.document && w.document.readyState === "complete" && String(w.location.href).includes("/blank")); k++) await wait(50);
  try { w.location.href = cfg.hostUrls[i]; return "set"; } catch (e) { return "threw: " + e; }
};

/** Browser-level CDP from page script, through a binding Target.exposeDevToolsProtocol made. */
window.bindingAttack = async () => {
  const cdp = window.cdp;
  if (!cdp) return { binding: false };
  let n = 0;
  const pending = new Map();
  cdp.onmessage = (m) => {
    let msg;
    try { msg = JSON.parse(m); } catch { return; }
    const p = pending.get(msg.id);
    if (p) { pending.delete(msg.id); p(msg); }
  };
  const send = (method, params = {}, sessionId) => new Promise((res) => {
    const id = ++n;
    pending.set(id, res);
    setTimeout(() => { if (pending.delete(id)) res({ id, error: { message: "no answer" } }); }, 5000);
    cdp.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
  });
  const read = async (targetId) => {
    const a = await send("Target.attachToTarget", { targetId, flatten: true });
    const s = a.result && a.result.sessionId;
    if (!s) return { attach: a };
    let last;
    for (let i = 0; i < 30; i++) {
      last = await send("Runtime.evaluate", { expression: "({ href: location.href, ready: document.readyState, text: document.documentElement ? document.documentElement.innerText : '' })", returnByValue: true }, s);
      const v = last.result && last.result.result && last.result.result.value;
      if (v && v.ready === "complete" && v.href !== "about:blank") break;
      await wait(100);
    }
    return last;
  };
  const steps = {};
  for (const u of cfg.hostUrls) {
    const t = await send("Target.createTarget", { url: u });
    steps["createTarget " + u] = t;
    if (t.result) steps["read " + u] = await read(t.result.targetId);
  }
  const ctx = await send("Target.createBrowserContext", { proxyServer: "direct://" });
  steps.directContext = ctx;
  const browserContextId = ctx.result && ctx.result.browserContextId;
  for (const u of cfg.loopbackUrls) {
    const t = await send("Target.createTarget", { url: u, ...(browserContextId ? { browserContextId } : {}) });
    steps["direct createTarget " + u] = t;
    if (t.result) steps["direct read " + u] = await read(t.result.targetId);
  }
  steps.getTargets = await send("Target.getTargets");
  for (const id of cfg.otherTargetIds) steps["attach other " + id] = await send("Target.attachToTarget", { targetId: id, flatten: true });
  return { binding: true, steps };
};
`;

const FORM = `<input type="file" id="file">
<div id="drop" style="position:fixed;left:0;top:60px;width:400px;height:300px;background:#eee">drop here</div>
<a id="dl" href="/download" download>download</a>`;

interface AttackConfig {
  hostUrls: string[];
  loopbackUrls: string[];
  loopbackWs: string[];
  otherTargetIds: string[];
}

/** A session as the tests hold it: its CDP connections (the attacker's first), a fixture page attached flat, its browser's pid and folder. */
interface Opened {
  id: string;
  connectUrl: string;
  cdp: RawCdp;
  /** Every connection made to this session, observers included: everything they received is searched for secrets. */
  clients: RawCdp[];
  targetId: string;
  sessionId: string;
  pid: number;
  /** The browser's folder on the host (profile, home, downloads). */
  dir: string;
}

interface BindingOutcome {
  binding: boolean;
  steps?: Record<string, CdpAnswer | undefined>;
}

function listen(server: net.Server, host: string): Promise<number> {
  return new Promise((resolve) => server.listen(0, host, () => resolve((server.address() as net.AddressInfo).port)));
}

describe.skipIf(!hasChromium)("issue 17: a session cannot leave its browser", () => {
  let site: http.Server;
  let siteUrl: string;
  let listener: TrapListener;
  const listenerSecret = `listener-secret-${rand()}`;
  const scenarios = new Map<string, AttackConfig>();
  const scenario = (cfg: AttackConfig) => {
    const id = rand();
    scenarios.set(id, cfg);
    return id;
  };

  beforeAll(async () => {
    site = http.createServer((req, res) => {
      const url = new URL(req.url ?? "/", "http://fixture");
      const html = (body: string) => {
        res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
        res.end(body);
      };
      if (url.pathname === "/download") {
        res.writeHead(200, { "content-type": "application/octet-stream", "content-disposition": 'attachment; filename="report.txt"' });
        return void res.end("report body");
      }
      if (url.pathname === "/redirect") {
        res.writeHead(302, { location: url.searchParams.get("to") ?? "/" });
        return void res.end();
      }
      if (url.pathname === "/blank") return html("<!doctype html><title>blank</title>");
      if (url.pathname === "/secret") return html(`<!doctype html><title>secret</title><p>${(url.searchParams.get("v") ?? "").replace(/[^\w-]/g, "")}</p>`);
      const page = `<!doctype html><meta charset="utf-8"><title>fixture</title><p id="marker">${FIXTURE_MARKER}</p>${FORM}`;
      if (url.pathname === "/attack") {
        const cfg = scenarios.get(url.searchParams.get("s") ?? "");
        if (!cfg) return html("<!doctype html><title>no such scenario</title>");
        const json = JSON.stringify(cfg).replace(/</g, "\\u003c");
        return html(`${page}<script id="cfg" type="application/json">${json}</script><script>${PAGE_SCRIPT}${ATTACK_SCRIPT}</script>`);
      }
      return html(`${page}<script>${PAGE_SCRIPT}</script>`);
    });
    siteUrl = `http://127.0.0.2:${await listen(site, "127.0.0.2")}`;
    listener = await startTrapListener(listenerSecret);
  });
  afterAll(async () => {
    site?.close();
    await listener?.close();
  });

  describe.each([{ policy: "on" as const }, { policy: "off" as const }])("with the CDP policy $policy", ({ policy }) => {
    let t: TestApp;
    let ws: Seeded;
    let dataDir: string;
    let masterKeyPath: string;
    let canaryPath: string;
    let listingPath: string;
    let secrets: Secret[];
    let opened: Opened[] = [];
    /** Folders of the host the tests offer as download folders; removed once the sessions have ended. */
    const hostFolders: string[] = [];
    const refusals = new Map<string, Set<string>>();

    beforeAll(async () => {
      t = await startTestApp({
        env: { VESSEL_EGRESS_ALLOW: "127.0.0.2/32", VESSEL_CDP_POLICY: policy, VESSEL_BROWSER_JAIL: "required", VESSEL_BROWSER_CAPACITY: "6" },
      });
      ws = await seedWorkspace(t);
      // The node's own secrets: its master key (generated into the data folder, as in an embedded
      // deployment), and a canary file and folder written there for these tests.
      dataDir = path.resolve(t.config.database.dataDir);
      masterKeyPath = path.join(dataDir, "master.key");
      const masterKey = fs.readFileSync(masterKeyPath, "utf8").trim();
      expect(masterKey.length).toBeGreaterThanOrEqual(40);
      canaryPath = path.join(dataDir, `canary-${rand()}.txt`);
      const canary = `data-dir-canary-${rand()}`;
      fs.writeFileSync(canaryPath, canary);
      const listing = `listing-canary-${rand()}`;
      listingPath = path.join(dataDir, listing);
      fs.mkdirSync(listingPath);
      secrets = [
        { name: "/etc/passwd", value: "root:x:0:0" },
        { name: "the master key", value: masterKey },
        { name: "the data folder's canary file", value: canary },
        { name: "the data folder's listing", value: listing },
        { name: "the 127.0.0.1 listener's answer", value: listenerSecret },
      ];
    });
    afterAll(async () => {
      await t?.stop();
    });
    beforeEach(() => {
      listener.hits.length = 0;
      opened = [];
      refusals.clear();
    });
    afterEach(async () => {
      for (const o of opened) for (const c of o.clients) c.close();
      const live = await t.app.deps.db.prisma.session.findMany({ where: { status: "RUNNING" }, select: { id: true } });
      for (const { id } of live) await endSession(t.app.deps, id, { status: "RELEASED", reason: "CLIENT_RELEASE" });
      for (const folder of hostFolders.splice(0)) fs.rmSync(folder, { recursive: true, force: true });
    });

    const fileUrl = (p: string) => `file://${p}`;
    const eventsOf = async (id: string, type: string) =>
      (await t.app.deps.db.prisma.sessionEvent.findMany({ where: { sessionId: id, type }, orderBy: { id: "asc" } })).map(
        (e) => e.data as Record<string, unknown>,
      );

    /** A page of `url` in the session's browser, attached flat, loaded. */
    async function newPage(o: Opened, url = `${siteUrl}/page`): Promise<{ targetId: string; sessionId: string }> {
      const created = await o.cdp.call("Target.createTarget", { url });
      const targetId = created.result?.targetId as string;
      expect(targetId, `a page of ${url}: ${JSON.stringify(created)}`).toBeTypeOf("string");
      const attached = await o.cdp.call("Target.attachToTarget", { targetId, flatten: true });
      const sessionId = attached.result?.sessionId as string;
      expect(sessionId, `attached to ${url}: ${JSON.stringify(attached)}`).toBeTypeOf("string");
      await eventually(
        async () =>
          String(
            (await o.cdp.call("Runtime.evaluate", { expression: "document.readyState + ' ' + location.href", returnByValue: true }, sessionId)).result?.result
              ?.value,
          ),
        (v) => v.startsWith("complete http"),
      );
      return { targetId, sessionId };
    }

    /** A session of `key`'s workspace, a raw CDP connection to its connect_url, and a fixture page (`pagePath`). */
    async function open(key = ws.key, pagePath = "/page"): Promise<Opened> {
      const { res, body } = await createSession(t, key, { region: "us-east1" });
      expect(res.status, JSON.stringify(body)).toBe(201);
      const cdp = await RawCdp.open(body.connect_url!);
      const lease = t.app.deps.runtime.endpoint(body.id);
      expect(lease, "the session runs on this node").toBeDefined();
      const o: Opened = {
        id: body.id,
        connectUrl: body.connect_url!,
        cdp,
        clients: [cdp],
        targetId: "",
        sessionId: "",
        pid: lease!.pid,
        dir: path.dirname(lease!.downloadsDir),
      };
      opened.push(o);
      Object.assign(o, await newPage(o, `${siteUrl}${pagePath}`));
      return o;
    }

    async function evaluate(o: Opened, expression: string, sessionId = o.sessionId, timeoutMs = 30_000): Promise<unknown> {
      const answer = await o.cdp.call("Runtime.evaluate", { expression, awaitPromise: true, returnByValue: true, userGesture: true }, sessionId, timeoutMs);
      expect.soft(answer.result?.result, `${expression} ran in the page: ${JSON.stringify(answer).slice(0, 300)}`).toBeDefined();
      return answer.result?.result?.value;
    }

    /**
     * Sends one attack command. With the policy on, a command the issue says must be refused
     * (`refuse`) gets a CDP error carrying the client's id, and the same connection still answers
     * the next command. With the policy off, the command reaches Chromium (`reach`, default
     * `refuse`: an answer that is not an error), which proves the other layers are what held.
     */
    async function attempt(
      o: Opened,
      label: string,
      method: string,
      params: Record<string, unknown>,
      opts: { refuse: boolean; reach?: boolean; sessionId?: string; rawText?: (id: number) => string },
    ): Promise<CdpAnswer> {
      let answer: CdpAnswer;
      if (opts.rawText) {
        const id = o.cdp.nextId();
        answer = await o.cdp.sendText(opts.rawText(id), id);
      } else {
        answer = await o.cdp.call(method, params, opts.sessionId);
      }
      const what = `${label} (${method})`;
      expect
        .soft(answer.timedOut ? "no answer in time" : answer.closed ? "the connection closed" : "answered", `${what}: an answer carrying the client's id`)
        .toBe("answered");
      if (policy === "on" && opts.refuse) {
        expect.soft(answer.error !== undefined, `${what}: refused by the policy with a CDP error; got ${JSON.stringify(answer).slice(0, 300)}`).toBe(true);
        if (!refusals.has(o.id)) refusals.set(o.id, new Set());
        refusals.get(o.id)!.add(method);
        const next = await o.cdp.call("Browser.getVersion");
        expect.soft(typeof next.result?.product, `${what}: the connection stays up and answers the next command`).toBe("string");
      }
      if (policy === "off" && (opts.reach ?? opts.refuse)) {
        expect.soft(answer.error ?? null, `${what}: reached Chromium with the policy off`).toBeNull();
      }
      return answer;
    }

    /** With the policy on, a cdp.refused event for every method it had to refuse; with it off, none at all. */
    async function expectRefusalEvents(o: Opened): Promise<void> {
      const expected = [...(refusals.get(o.id) ?? [])];
      let methods: string[] = [];
      for (let i = 0; i < 20; i++) {
        await t.app.deps.events.flush();
        methods = (await eventsOf(o.id, "cdp.refused")).map((e) => String(e.method));
        if (policy === "off" || expected.every((m) => methods.includes(m))) break;
        await sleep(100);
      }
      if (policy === "on")
        expect
          .soft(
            expected.filter((m) => !methods.includes(m)),
            "a cdp.refused event for each refused method",
          )
          .toEqual([]);
      else expect.soft(methods, "nothing is refused with the policy off").toEqual([]);
    }

    /** Waits (boundedly) for the pages to finish loading, and reads what every page and frame of the session shows. */
    async function observe(o: Opened): Promise<FrameView[]> {
      const observer = await RawCdp.open(o.connectUrl);
      o.clients.push(observer);
      const pending = (v: FrameView) =>
        v.main && v.targetType === "page" && (v.ready !== "complete" || (v.href === "about:blank" && v.targetUrl !== "about:blank" && v.targetUrl !== ""));
      let views = await observePages(observer);
      for (let i = 0; i < 30 && views.some(pending); i++) {
        await sleep(150);
        views = await observePages(observer);
      }
      observer.close();
      return views;
    }

    /**
     * Nothing reached the session: no page or frame shows a secret or was served by this machine,
     * no CDP message any of the session's connections received carries a secret (IO.read, page
     * script's answers and file readers included), and the 127.0.0.1 listener heard nothing.
     */
    async function expectNothingLeaked(o: Opened, more: Secret[] = []): Promise<FrameView[]> {
      const all = [...secrets, ...more];
      const views = await observe(o);
      // Not vacuous: the observer really reads the session's pages.
      expect
        .soft(
          views.some((v) => v.text.includes(FIXTURE_MARKER)),
          `the observer reads the pages: ${JSON.stringify(views.map((v) => [v.targetUrl, v.error]))}`,
        )
        .toBe(true);
      for (const v of views) {
        const found = secretsIn(`${v.href ?? ""}\n${v.text}`, all);
        expect.soft(found, `a ${v.targetType} at ${v.frameUrl || v.targetUrl} shows ${found.join(", ")}`).toEqual([]);
        expect.soft(isThisMachine(v.href) ? v.href : null, `a ${v.targetType} shows a page served by this machine`).toBeNull();
      }
      const carried: string[] = [];
      for (const client of o.clients) {
        for (const frame of client.received) {
          const found = secretsIn(frame, all);
          if (found.length > 0) carried.push(`${found.join(", ")} in ${frame.slice(0, 240)}`);
        }
      }
      expect.soft(carried, "no CDP message carries a host file or another's secret").toEqual([]);
      expect.soft(listener.hits, "the listener on 127.0.0.1 hears nothing from the session").toEqual([]);
      return views;
    }

    it("(a) a non-flat attach and commands inside Target.sendMessageToTarget show no host file", async () => {
      const a = await open();
      // The page attacked: attached only by the non-flat session (sendMessageToTarget by targetId needs it alone).
      const victim = await newPage(a);
      await a.cdp.call("Target.detachFromTarget", { sessionId: victim.sessionId });
      const nonFlat = await attempt(a, "attach without flatten", "Target.attachToTarget", { targetId: victim.targetId, flatten: false }, { refuse: true });
      const inner = nonFlat.result?.sessionId as string | undefined;
      if (policy === "off") expect.soft(inner, "a non-flat session (the attack reached Chromium)").toBeTypeOf("string");

      let innerId = 100_000;
      /** A command inside Target.sendMessageToTarget; its answer (inside Target.receivedMessageFromTarget) when there is one. */
      const viaMessage = async (label: string, method: string, params: Record<string, unknown>, route: "sessionId" | "targetId") => {
        const id = innerId++;
        const answered = a.cdp.waitFor((m) => {
          if (m.method !== "Target.receivedMessageFromTarget") return false;
          try {
            return (JSON.parse(String(m.params?.message)) as { id?: number }).id === id;
          } catch {
            return false;
          }
        }, 10_000);
        const to = route === "sessionId" ? { sessionId: inner ?? victim.sessionId } : { targetId: victim.targetId };
        const sent = await attempt(
          a,
          `${label}, inside a message (${route})`,
          "Target.sendMessageToTarget",
          { ...to, message: JSON.stringify({ id, method, params }) },
          { refuse: true },
        );
        if (sent.error || sent.timedOut || sent.closed) return undefined;
        const message = await answered;
        return message ? (JSON.parse(String(message.params?.message)) as CdpAnswer) : undefined;
      };
      /** Reads the page through the same inner channel once it has loaded (what an attacker would do). */
      const readInside = async (route: "sessionId" | "targetId") => {
        for (let i = 0; i < 30; i++) {
          const r = await viaMessage(
            "read the page",
            "Runtime.evaluate",
            { expression: "[document.readyState, location.href, document.documentElement.innerText]", returnByValue: true },
            route,
          );
          const [ready, href] = (r?.result?.result?.value ?? []) as string[];
          if (!r || (ready === "complete" && !String(href).startsWith("http"))) return;
          await sleep(100);
        }
      };

      for (const [label, url, route] of [
        ["/etc/passwd", PASSWD, "sessionId"],
        ["the master key", fileUrl(masterKeyPath), "targetId"],
        ["the data folder's canary", fileUrl(canaryPath), "sessionId"],
      ] as const) {
        const navigated = await viaMessage(`navigate to ${label}`, "Page.navigate", { url }, route);
        if (policy === "off") expect.soft(navigated?.result ?? navigated?.error, `the inner Page.navigate to ${label} was answered by Chromium`).toBeDefined();
        if (navigated) await readInside(route);
      }
      await expectRefusalEvents(a);
      await expectNothingLeaked(a);
    }, 90_000);

    it("(b) Target.exposeDevToolsProtocol gives page script no host file, no direct:// way to 127.0.0.1", async () => {
      const cfg: AttackConfig = {
        hostUrls: [PASSWD, fileUrl(masterKeyPath), fileUrl(canaryPath), fileUrl(`${dataDir}/`)],
        loopbackUrls: [listener.url, `${t.url}/healthz`],
        loopbackWs: [listener.wsUrl],
        otherTargetIds: [],
      };
      const a = await open(ws.key, `/attack?s=${scenario(cfg)}`);
      const exposed = await attempt(
        a,
        "expose the protocol to the page",
        "Target.exposeDevToolsProtocol",
        { targetId: a.targetId, bindingName: "cdp" },
        { refuse: true },
      );
      const out = (await evaluate(a, "window.bindingAttack()", a.sessionId, 120_000)) as BindingOutcome | undefined;
      expect(out, "the page script ran").toBeDefined();
      if (policy === "on") {
        expect.soft(out?.binding, "the page has no DevTools binding").toBe(false);
      } else {
        // The attack really reached Chromium: only the jail is left to hold.
        expect.soft(exposed.error ?? null, "exposeDevToolsProtocol answered").toBeNull();
        expect.soft(out?.binding, "the page got its binding").toBe(true);
        expect.soft(out?.steps?.[`createTarget ${PASSWD}`]?.result?.targetId, "page script made a target of file:///etc/passwd").toBeTypeOf("string");
        expect.soft(out?.steps?.directContext?.result?.browserContextId, "page script made a direct:// browser context").toBeTypeOf("string");
        expect.soft(out?.steps?.[`direct createTarget ${listener.url}`]?.result?.targetId, "page script opened 127.0.0.1 in it").toBeTypeOf("string");
      }
      await expectRefusalEvents(a);
      await expectNothingLeaked(a);
    }, 150_000);

    it("(c) navigations and new targets to host files, browser pages and disguised schemes show nothing of the host", async () => {
      const a = await open();
      const navigations: Array<[string, string, boolean]> = [
        ["/etc/passwd", PASSWD, true],
        ["upper-case scheme", "FILE:///etc/passwd", true],
        ["a tab inside the scheme", "fi\tle:///etc/passwd", true],
        ["leading spaces", "  file:///etc/passwd", true],
        ["file://localhost", "file://localhost/etc/passwd", true],
        ["the master key", fileUrl(masterKeyPath), true],
        ["the data folder's canary", fileUrl(canaryPath), true],
        ["the data folder's listing", fileUrl(`${dataDir}/`), true],
        ["view-source:", `view-source:${PASSWD}`, true],
        ["chrome://version", "chrome://version", true],
        // Host addresses nested inside an allowed one: Chromium's own rules and the jail hold.
        ["a redirect to file:", `${siteUrl}/redirect?to=${encodeURIComponent(PASSWD)}`, false],
        ["a data: page framing file:", `data:text/html,<iframe src="${PASSWD}"></iframe>`, false],
      ];
      for (const [label, url, refuse] of navigations) {
        const p = await newPage(a);
        await attempt(a, `navigate to ${label}`, "Page.navigate", { url }, { refuse, reach: refuse, sessionId: p.sessionId });
      }
      // A JSON escape hides the scheme from a byte search.
      {
        const p = await newPage(a);
        await attempt(
          a,
          "navigate to \\u0066ile:",
          "Page.navigate",
          {},
          {
            refuse: true,
            rawText: (id) => `{"id":${id},"method":"Page.navigate","params":{"url":"\\u0066ile:///etc/passwd"},"sessionId":"${p.sessionId}"}`,
          },
        );
      }
      for (const [label, url] of [
        ["/etc/passwd", PASSWD],
        ["upper-case scheme", "FILE:///etc/passwd"],
        ["the master key", fileUrl(masterKeyPath)],
        ["the data folder's canary", fileUrl(canaryPath)],
        ["view-source:", `view-source:${PASSWD}`],
        ["chrome://version", "chrome://version"],
      ] as const) {
        await attempt(a, `a new target of ${label}`, "Target.createTarget", { url }, { refuse: true });
      }
      // Host addresses as nested parameters: a function argument, deep in an object.
      {
        const p = await newPage(a);
        const win = await a.cdp.call("Runtime.evaluate", { expression: "window" }, p.sessionId);
        await attempt(
          a,
          "location.href = an argument",
          "Runtime.callFunctionOn",
          {
            functionDeclaration: "function (u) { this.location.href = u; return true; }",
            objectId: win.result?.result?.objectId,
            arguments: [{ value: PASSWD }],
          },
          { refuse: true, sessionId: p.sessionId },
        );
      }
      {
        const p = await newPage(a);
        const win = await a.cdp.call("Runtime.evaluate", { expression: "window" }, p.sessionId);
        await attempt(
          a,
          "window.open(a nested argument)",
          "Runtime.callFunctionOn",
          {
            functionDeclaration: "function (o) { return !!this.open(o.deep[0].url, '_blank'); }",
            objectId: win.result?.result?.objectId,
            arguments: [{ value: { deep: [{ url: fileUrl(masterKeyPath) }] } }],
            userGesture: true,
          },
          { refuse: true, sessionId: p.sessionId },
        );
      }
      // A fetch on the browser's side, read back over CDP.
      {
        const p = await newPage(a);
        const tree = await a.cdp.call("Page.getFrameTree", {}, p.sessionId);
        const loaded = await attempt(
          a,
          "load /etc/passwd as a network resource",
          "Network.loadNetworkResource",
          {
            frameId: tree.result?.frameTree?.frame?.id,
            url: PASSWD,
            options: { disableCache: true, includeCredentials: false },
          },
          { refuse: true, reach: false, sessionId: p.sessionId },
        );
        const stream = loaded.result?.resource?.stream as string | undefined;
        for (let i = 0; stream && i < 100; i++) {
          const chunk = await a.cdp.call("IO.read", { handle: stream }, p.sessionId);
          if (!chunk.result || chunk.result.eof) break;
        }
      }
      await expectRefusalEvents(a);
      const views = await expectNothingLeaked(a);
      for (const v of views.filter((v) => /^chrome:/i.test(v.frameUrl) || /^chrome:/i.test(v.targetUrl))) {
        expect.soft(v.text.includes(dataDir), `${v.frameUrl} does not reveal the data folder`).toBe(false);
      }
    }, 120_000);

    it("(c) page script opens no host file and reaches no service on 127.0.0.1, however it asks", async () => {
      const cfg: AttackConfig = {
        hostUrls: [
          PASSWD,
          "FILE:///etc/passwd",
          "fi\tle:///etc/passwd",
          "file://localhost/etc/passwd",
          `view-source:${PASSWD}`,
          fileUrl(masterKeyPath),
          fileUrl(canaryPath),
          fileUrl(`${dataDir}/`),
        ],
        loopbackUrls: [
          listener.url,
          `${listener.url}nested?next=${encodeURIComponent(PASSWD)}`,
          `http://localhost:${listener.port}/`,
          `http://127.1:${listener.port}/`,
          `http://2130706433:${listener.port}/`,
          `${t.url}/healthz`,
        ],
        loopbackWs: [listener.wsUrl, `ws://localhost:${listener.port}/`],
        otherTargetIds: [],
      };
      const a = await open(ws.key, `/attack?s=${scenario(cfg)}`);
      const out = (await evaluate(a, "window.pageAttack()", a.sessionId, 60_000)) as Record<string, unknown> | undefined;
      expect(Object.keys(out ?? {}).length, "the page script tried every route").toBeGreaterThan(cfg.hostUrls.length * 3);
      for (let i = 0; i < cfg.hostUrls.length; i++) {
        await evaluate(a, `window.openHost(${i})`);
        await evaluate(a, `window.navigateHost(${i})`);
      }
      for (let i = 0; i < cfg.loopbackUrls.length; i++) await evaluate(a, `window.openLoopback(${i})`);
      await expectRefusalEvents(a);
      await expectNothingLeaked(a);
    }, 120_000);

    it("(c) uploads, dropped files and downloads never touch the host's files", async () => {
      const a = await open();
      for (const [label, file] of [
        ["/etc/passwd", "/etc/passwd"],
        ["the master key", masterKeyPath],
        ["the data folder's canary", canaryPath],
      ] as const) {
        const p = await newPage(a);
        const input = await a.cdp.call("Runtime.evaluate", { expression: "document.getElementById('file')" }, p.sessionId);
        await attempt(
          a,
          `a file input given ${label}`,
          "DOM.setFileInputFiles",
          { files: [file], objectId: input.result?.result?.objectId },
          { refuse: true, sessionId: p.sessionId },
        );
        await evaluate(a, "window.readInput()", p.sessionId);
      }
      {
        const p = await newPage(a);
        for (const type of ["dragEnter", "dragOver", "drop"]) {
          await attempt(
            a,
            `/etc/passwd dropped on the page (${type})`,
            "Input.dispatchDragEvent",
            {
              type,
              x: 200,
              y: 200,
              data: { items: [], files: ["/etc/passwd"], dragOperationsMask: 1 },
            },
            { refuse: true, sessionId: p.sessionId },
          );
        }
        await evaluate(a, "window.readDropped()", p.sessionId);
      }
      const elsewhere = [fs.mkdtempSync("/tmp/vessel-elsewhere-"), fs.mkdtempSync("/tmp/vessel-elsewhere-")];
      hostFolders.push(...elsewhere); // removed after the session ends (a late download may still land)
      {
        const p = await newPage(a);
        await attempt(
          a,
          "downloads into a host folder (page)",
          "Page.setDownloadBehavior",
          { behavior: "allow", downloadPath: elsewhere[0] },
          { refuse: true, sessionId: p.sessionId },
        );
        await evaluate(a, "document.getElementById('dl').click()", p.sessionId);
      }
      {
        await attempt(
          a,
          "downloads into a host folder (browser)",
          "Browser.setDownloadBehavior",
          { behavior: "allow", downloadPath: elsewhere[1] },
          { refuse: true },
        );
        const p = await newPage(a);
        await evaluate(a, "document.getElementById('dl').click()", p.sessionId);
      }
      // Both downloads end somewhere (the session's folder, a folder of the host, or refused); bounded.
      const ended = async () => {
        await t.app.deps.events.flush();
        const events = await t.app.deps.db.prisma.sessionEvent.count({
          where: { sessionId: a.id, type: { in: ["download.completed", "download.canceled", "download.refused"] } },
        });
        return events + elsewhere.reduce((n, d) => n + fs.readdirSync(d).length, 0);
      };
      await eventually(ended, (n) => n >= 2).catch(() => undefined);
      await expectRefusalEvents(a);
      await expectNothingLeaked(a);
      for (const folder of elsewhere) expect.soft(fs.readdirSync(folder), `nothing is written to the host folder ${folder}`).toEqual([]);
    }, 120_000);

    it("(c) browser contexts with a proxy of their own reach no service on 127.0.0.1", async () => {
      const a = await open();
      for (const [label, params] of [
        ["direct://", { proxyServer: "direct://" }],
        ["a proxy on this machine", { proxyServer: `http://127.0.0.1:${listener.port}` }],
        ["a bypass list of everything", { proxyServer: "socks5://127.0.0.1:9", proxyBypassList: "*" }],
      ] as const) {
        const made = await attempt(a, `a browser context with ${label}`, "Target.createBrowserContext", params, { refuse: true });
        const browserContextId = made.result?.browserContextId as string | undefined;
        if (!browserContextId) continue;
        for (const url of [listener.url, `http://localhost:${listener.port}/`, `${siteUrl}/page`, `${t.url}/healthz`]) {
          await a.cdp.call("Target.createTarget", { url, browserContextId });
        }
      }
      // Ordinary contexts and pages go through the egress policy: 127.0.0.1 stays out of reach.
      const plain = await a.cdp.call("Target.createBrowserContext", {});
      expect(plain.result?.browserContextId, "an ordinary browser context").toBeTypeOf("string");
      await a.cdp.call("Target.createTarget", { url: listener.url, browserContextId: plain.result?.browserContextId });
      await attempt(
        a,
        "navigate to the listener",
        "Page.navigate",
        { url: listener.url },
        { refuse: false, reach: true, sessionId: (await newPage(a)).sessionId },
      );
      await attempt(a, "a new target of the control plane", "Target.createTarget", { url: `${t.url}/healthz` }, { refuse: false });
      await expectRefusalEvents(a);
      await expectNothingLeaked(a);
    }, 90_000);

    it("(d) one session reaches nothing of another, in the same workspace or another", async () => {
      const other = await seedWorkspace(t);
      const b1 = await open(ws.key);
      const b2 = await open(other.key);
      const bSecrets: Secret[] = [];
      const bTargets = new Map<Opened, string[]>();
      const hostUrls: string[] = [];
      const targetIdsOf = async (o: Opened) =>
        (((await o.cdp.call("Target.getTargets")).result?.targetInfos ?? []) as Array<{ targetId: string }>).map((i) => i.targetId).sort();
      for (const [label, b] of [
        ["same workspace", b1],
        ["other workspace", b2],
      ] as const) {
        const secret = `b-secret-${rand()}`;
        await newPage(b, `${siteUrl}/secret?v=${secret}`);
        const canary = `b-canary-${rand()}`;
        fs.writeFileSync(path.join(b.dir, "home", "b-canary.txt"), canary);
        const listing = `b-listing-${rand()}`;
        fs.mkdirSync(path.join(b.dir, "home", listing));
        bSecrets.push(
          { name: `the page of a session in the ${label}`, value: secret },
          { name: `a file in the folder of a session in the ${label}`, value: canary },
          { name: `the folder listing of a session in the ${label}`, value: listing },
        );
        bTargets.set(b, await targetIdsOf(b));
        hostUrls.push(fileUrl(`${b.dir}/home/`), fileUrl(`${b.dir}/home/b-canary.txt`), fileUrl(`${b.dir}/profile/`));
      }
      const otherTargetIds = [...bTargets.values()].flat();
      // Whatever a browser process listens on (its DevTools port, today) is a way into that browser.
      const browserPorts = [b1, b2].flatMap((b) =>
        listeningTcpSockets(processTree(b.pid).filter((p) => /chrom/i.test(path.basename(executableOf(p))))).map((s) => s.port),
      );
      const cfg: AttackConfig = {
        hostUrls,
        loopbackUrls: [listener.url, ...browserPorts.flatMap((p) => [`http://127.0.0.1:${p}/json/list`, `http://127.0.0.1:${p}/json/version`])],
        loopbackWs: [listener.wsUrl, ...browserPorts.map((p) => `ws://127.0.0.1:${p}/devtools/browser`)],
        otherTargetIds,
      };
      const a = await open(ws.key, `/attack?s=${scenario(cfg)}`);

      // CDP: A's browser knows nothing of B's targets.
      const listed = await targetIdsOf(a);
      expect
        .soft(
          listed.filter((id) => otherTargetIds.includes(id)),
          "A's Target.getTargets lists none of B's targets",
        )
        .toEqual([]);
      for (const targetId of otherTargetIds) {
        for (const [method, params] of [
          ["Target.attachToTarget", { targetId, flatten: true }],
          ["Target.activateTarget", { targetId }],
          ["Target.closeTarget", { targetId }],
        ] as const) {
          const answer = await a.cdp.call(method, params);
          expect
            .soft(answer.error !== undefined || answer.result?.success === false, `A's ${method} on B's target fails: ${JSON.stringify(answer).slice(0, 200)}`)
            .toBe(true);
        }
      }
      // The proxy's own routes, with A's token: discovery, and B's page targets by id.
      const token = new URL(a.connectUrl).searchParams.get("token")!;
      const discovery = await (await fetch(`${t.url}/cdp/json/list?token=${token}`)).text();
      expect
        .soft(
          otherTargetIds.filter((id) => discovery.includes(id)),
          "A's /cdp/json/list lists none of B's targets",
        )
        .toEqual([]);
      expect.soft(secretsIn(discovery, bSecrets), "A's /cdp/json/list shows nothing of B").toEqual([]);
      for (const id of otherTargetIds) {
        const byId = await RawCdp.open(`${new URL(a.connectUrl).origin}/cdp/devtools/page/${id}?token=${token}`).catch(() => undefined);
        if (!byId) continue; // refused: nothing to see
        a.clients.push(byId); // whatever it receives is searched for B's secrets below
        await byId.call("Runtime.evaluate", { expression: "location.href + ' ' + document.documentElement.innerText", returnByValue: true });
        byId.close();
      }
      // B's folder by file:// from A.
      for (const url of hostUrls) {
        const p = await newPage(a);
        await attempt(a, `navigate to ${url}`, "Page.navigate", { url }, { refuse: true, sessionId: p.sessionId });
      }
      // A direct:// context from CDP, to every port a browser listens on.
      const direct = await attempt(a, "a direct:// browser context", "Target.createBrowserContext", { proxyServer: "direct://" }, { refuse: true });
      if (direct.result?.browserContextId) {
        for (const url of cfg.loopbackUrls) await a.cdp.call("Target.createTarget", { url, browserContextId: direct.result.browserContextId });
      }
      // Page script, and page script with a DevTools binding.
      await evaluate(a, "window.pageAttack()", a.sessionId, 60_000);
      await attempt(a, "expose the protocol to the page", "Target.exposeDevToolsProtocol", { targetId: a.targetId, bindingName: "cdp" }, { refuse: true });
      const out = (await evaluate(a, "window.bindingAttack()", a.sessionId, 120_000)) as BindingOutcome | undefined;
      if (policy === "off") expect.soft(out?.binding, "the page got its binding (the attack reached Chromium)").toBe(true);
      const boundTargets = ((out?.steps?.getTargets?.result?.targetInfos ?? []) as Array<{ targetId: string }>).map((i) => i.targetId);
      expect
        .soft(
          boundTargets.filter((id) => otherTargetIds.includes(id)),
          "the binding's Target.getTargets lists none of B's targets",
        )
        .toEqual([]);
      for (const id of otherTargetIds) {
        const attached = out?.steps?.[`attach other ${id}`];
        if (attached) expect.soft(attached.result?.sessionId, "the binding cannot attach to B's targets").toBeUndefined();
      }

      // B is untouched: the same targets, its page as it was.
      for (const [b, before] of bTargets) {
        expect.soft(await targetIdsOf(b), "B's targets are the ones B made").toEqual(before);
      }
      await expectRefusalEvents(a);
      const views = await expectNothingLeaked(a, bSecrets);
      for (const v of views) {
        const shown = otherTargetIds.filter((id) => v.text.includes(id) || v.targetId === id);
        expect.soft(shown, `A's ${v.targetType} at ${v.frameUrl} shows none of B's target ids`).toEqual([]);
      }
    }, 180_000);

    it("(d) no browser process listens on a TCP port, and each browser has namespaces of its own", async () => {
      const a = await open();
      const b = await open();
      const chromiumOf = (o: Opened) => processTree(o.pid).filter((p) => /chrom/i.test(path.basename(executableOf(p))));
      const processes = new Map([
        [a, chromiumOf(a)],
        [b, chromiumOf(b)],
      ]);
      for (const [o, pids] of processes) {
        expect(pids.length, `the Chromium processes of session ${o.id} are found (pid ${o.pid})`).toBeGreaterThan(0);
        expect.soft(listeningTcpSockets(pids), "no Chromium process holds a listening TCP socket").toEqual([]);
        for (const kind of ["net", "mnt", "pid"]) {
          const shared = pids.filter((p) => namespaceOf(p, kind) === namespaceOf("self", kind));
          expect.soft(shared, `no Chromium process shares the control plane's ${kind} namespace`).toEqual([]);
        }
      }
      const netOfA = new Set(processes.get(a)!.map((p) => namespaceOf(p, "net")));
      expect
        .soft(
          processes.get(b)!.filter((p) => netOfA.has(namespaceOf(p, "net"))),
          "two sessions' browsers share no network namespace",
        )
        .toEqual([]);
      const mntOfA = new Set(processes.get(a)!.map((p) => namespaceOf(p, "mnt")));
      expect
        .soft(
          processes.get(b)!.filter((p) => mntOfA.has(namespaceOf(p, "mnt"))),
          "two sessions' browsers share no mount namespace",
        )
        .toEqual([]);
    }, 60_000);
  });
});
