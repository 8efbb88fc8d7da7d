// (b) of bench/sessions.ts: the CDP round trip and pipelined throughput through Vessel's /cdp, next
// to a reference Chromium's own DevTools WebSocket and the floors of any hop (see that file's header).
import { fork } from "node:child_process";
import type net from "node:net";
import type { TestApp } from "../test/support/app.ts";
import { call } from "./sessions-harness.ts";
import { bareRelay, f, median, pad, pct, pipeRelay, verdict } from "./support.ts";

export interface CdpBenchOptions {
  t: TestApp;
  api: { baseUrl: string; key: string };
  settle: () => Promise<void>;
  print: (line?: string) => void;
  /** Alternating rounds; sequential round trips and pipelined messages per round. */
  rounds: number;
  seq: number;
  pipe: number;
}

export async function benchCdp(o: CdpBenchOptions): Promise<void> {
  await o.settle();
  const cdpSession = await call("createSession", o.api);
  const lease = o.t.app.deps.runtime.endpoint(cdpSession.id);
  if (!lease) throw new Error(`session ${cdpSession.id} has no browser in the runtime`);
  // "Direct": a reference Chromium's own DevTools WebSocket (a session's browser has no port).
  const reference = await call("referenceLaunch", {});
  await o.settle(); // the spare launched to replace this session's browser is up before anything is timed
  const refPath = new URL(reference.wsEndpoint).pathname;
  // The floor for any hop in this process: a bare TCP relay to the reference's port, bytes piped both ways.
  const relay = bareRelay(reference.port);
  await new Promise<void>((resolve) => relay.listen(0, "127.0.0.1", () => resolve()));
  const relayUrl = `ws://127.0.0.1:${(relay.address() as net.AddressInfo).port}${refPath}`;
  // The same bare relay in a process of its own: what the hop costs when nothing else shares its event loop.
  const relayChild = fork(new URL("./relay-process.ts", import.meta.url), [String(reference.port)], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const relayChildPort = await new Promise<number>((resolve) => relayChild.once("message", (m) => resolve(Number(m))));
  const soloUrl = `ws://127.0.0.1:${relayChildPort}${refPath}`;
  // The floor for a relay to a browser without a port: a bare WebSocket→pipe relay to the session's own browser.
  const toPipe = await pipeRelay(lease.cdp);
  await call("cdpOpen", { name: "direct", url: reference.wsEndpoint });
  await call("cdpOpen", { name: "ownPipe", url: "pipe:reference" });
  await call("cdpOpen", { name: "relay", url: relayUrl });
  await call("cdpOpen", { name: "solo", url: soloUrl });
  await call("cdpOpen", { name: "wsPipe", url: toPipe.url });
  await call("cdpOpen", { name: "proxy", url: cdpSession.connectUrl });
  const sides = ["direct", "ownPipe", "relay", "solo", "wsPipe", "proxy"] as const;
  type Side = (typeof sides)[number];
  const label: Record<Side, string> = {
    direct: "direct to a Chromium",
    ownPipe: "its pipe, no hop",
    relay: "bare TCP relay here",
    solo: "bare relay, own process",
    wsPipe: "bare ws→pipe relay here",
    proxy: "through Vessel /cdp",
  };
  const perSide = <T>(make: () => T) => Object.fromEntries(sides.map((side) => [side, make()])) as Record<Side, T>;
  const rtt = perSide<number[]>(() => []);
  const rate = perSide<number[]>(() => []);
  /** Per round, x median / direct median and x rate / direct rate: drift in the machine's load cancels within a round. */
  const rttRatios = perSide<number[]>(() => []);
  const rateRatios = perSide<number[]>(() => []);
  for (const side of sides) {
    await call("cdpSeq", { name: side, n: 300 });
    await call("cdpPipe", { name: side, n: o.pipe });
  }
  for (let r = 0; r < o.rounds; r++) {
    // Each side takes each place in the order equally often across rounds.
    const order: Side[] = [...sides.slice(r % sides.length), ...sides.slice(0, r % sides.length)];
    if (r % 2 === 1) order.reverse();
    const roundRtt = perSide<number[]>(() => []);
    const roundRate = perSide<number>(() => 0);
    for (const side of order) roundRtt[side] = await call("cdpSeq", { name: side, n: o.seq });
    for (const side of order) roundRate[side] = o.pipe / ((await call("cdpPipe", { name: side, n: o.pipe })) / 1000);
    for (const side of sides) {
      rtt[side].push(...roundRtt[side]);
      rate[side].push(roundRate[side]);
      rttRatios[side].push(median(roundRtt[side]) / median(roundRtt.direct));
      rateRatios[side].push(roundRate[side] / roundRate.direct);
    }
  }
  await call("cdpClose", {}); // the clients, and the reference browser
  relay.close();
  relayChild.kill();
  await toPipe.close();
  await call("releaseSession", { ...o.api, id: cdpSession.id });

  const ms3 = (x: number) => f(x, 3);
  const vs = (a: Side, b: Side) => median(rtt[a]) / median(rtt[b]);
  o.print(
    `(b) CDP Runtime.evaluate("1+1") on a page session (flat), raw ws client; ${o.rounds} alternating rounds of ${o.seq} sequential + ${o.pipe} pipelined`,
  );
  o.print(`    direct = a reference Chromium's own DevTools WebSocket (same flags as the pool's); "its pipe" = the same browser over its`);
  o.print(`    pipe, from the client process that launched it; the bare TCP relays lead to its port; the ws→pipe relay and /cdp lead`);
  o.print(`    to the session's browser over its pipe`);
  for (const side of sides) {
    o.print(
      `  ${pad(label[side], 24)} round trip n=${rtt[side].length}: p50 ${ms3(median(rtt[side]))} p95 ${ms3(pct(rtt[side], 95))} p99 ${ms3(pct(rtt[side], 99))} ms` +
        (side === "direct" ? "" : `; ×direct p50 ${f(vs(side, "direct"), 2)} (per-round median ${f(median(rttRatios[side]), 2)})`),
    );
  }
  const rttRatio = vs("proxy", "direct");
  o.print(
    `  ratio proxy/direct round trip: p50 ${f(rttRatio, 2)}× (goal ≤ 1.2×: ${verdict(rttRatio <= 1.2)}), p99 ${f(pct(rtt.proxy, 99) / pct(rtt.direct, 99), 2)}×; added p50 ${f((median(rtt.proxy) - median(rtt.direct)) * 1000, 0)} µs`,
  );
  o.print(`  per-round proxy/direct p50 ratios: ${rttRatios.proxy.map((x) => f(x, 2)).join(", ")}; median ${f(median(rttRatios.proxy), 2)}×`);
  o.print(
    `  proxy over its floors, p50: /cdp ÷ bare ws→pipe relay ${f(vs("proxy", "wsPipe"), 2)}× (+${f((median(rtt.proxy) - median(rtt.wsPipe)) * 1000, 0)} µs: shape checks, policy, tracking);` +
      ` ÷ bare TCP relay here ${f(vs("proxy", "relay"), 2)}×; a pipe instead of a WebSocket at Chromium, no hop: ${f(vs("ownPipe", "direct"), 2)}×`,
  );
  for (const side of sides) {
    o.print(
      `  ${pad(label[side], 24)} pipelined msgs/s per round: ${rate[side].map((x) => Math.round(x)).join(", ")}; median ${Math.round(median(rate[side]))}` +
        (side === "direct"
          ? ""
          : `; ${f((median(rate[side]) / median(rate.direct)) * 100, 0)}% of direct (per-round median ${f(median(rateRatios[side]) * 100, 0)}%)`),
    );
  }
  const rateRatio = median(rate.proxy) / median(rate.direct);
  o.print(`  ratio proxy/direct pipelined throughput: ${f(rateRatio * 100, 1)}% (goal ≥ 90%: ${verdict(rateRatio >= 0.9)})`);
  o.print(`  per-round proxy/direct ratios: ${rateRatios.proxy.map((x) => f(x * 100, 0) + "%").join(", ")}; median ${f(median(rateRatios.proxy) * 100, 1)}%`);
  o.print(`  proxy ÷ bare ws→pipe relay, pipelined: ${f((median(rate.proxy) / median(rate.wsPipe)) * 100, 1)}%`);
  o.print();
}
