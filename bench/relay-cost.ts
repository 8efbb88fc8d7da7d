// bench/relay.ts (b), apart from its (a): the control-plane CPU of one session's lifecycle and of
// one relayed command, the node's main process (this one, where the server runs) and its relay host
// (src/browser/cdp/relay/host.ts) together, with V8's profile of where the main process's goes.
// relay.ts calls it once (a) is done, with the same app and its warm pool settled.
import fs from "node:fs";
import { sharedRelayHost } from "../src/browser/cdp/relay/host.ts";
import type { TestApp } from "../test/support/app.ts";
import { startCpuProfile } from "./cpu-profile.ts";
import { reportFigure } from "./figures.ts";
import { call } from "./sessions-harness.ts";
import { f, pad } from "./support.ts";

const print = (line = "") => console.log(line);

/** CPU milliseconds the relay hosts have used so far (their user + system clock ticks), 0 without one. */
function relayHostCpuMs(t: TestApp): number {
  let ms = 0;
  for (const pid of sharedRelayHost(t.app.deps.log, t.app.deps.config.browser.cdpRelayHosts).pids) {
    try {
      const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
      ms += ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime, stime at 100 ticks/s
    } catch {
      // gone meanwhile
    }
  }
  return ms;
}

/** `costN` lifecycles for the per-session figure, `pipeN` pipelined commands per round for the per-command one. */
export async function measureControlPlaneCost(
  t: TestApp,
  api: { baseUrl: string; key: string },
  settle: () => Promise<void>,
  { costN, pipeN }: { costN: number; pipeN: number },
): Promise<void> {
  // (b) control-plane CPU per session and per relayed command (this process is the node). The CPU
  // is measured without the profiler (its sampler alone more than doubled the figure); the shares of
  // where it goes come from a separate, profiled set of lifecycles.
  await settle();
  await call("lifecycleVessel", api);
  await settle();
  const cpu0 = process.cpuUsage();
  const host0 = relayHostCpuMs(t);
  for (let i = 0; i < costN; i++) await call("lifecycleVessel", api);
  await settle();
  const cpu1 = process.cpuUsage(cpu0);
  const hostPerSession = (relayHostCpuMs(t) - host0) / costN;
  const profile = await startCpuProfile();
  for (let i = 0; i < Math.ceil(costN / 2); i++) await call("lifecycleVessel", api);
  await settle();
  const where = await profile.stop("lifecycles");
  const mainPerSession = (cpu1.user + cpu1.system) / 1000 / costN;
  const perSession = mainPerSession + hostPerSession;
  print(
    `(b) control-plane CPU per session, ${costN} lifecycles (create → connect → newPage → goto → release; the pool's refill included): ${f(perSession, 1)} ms ` +
      `(the node's main process ${f(mainPerSession, 1)} ms, its relay host ${f(hostPerSession, 1)} ms); the main process's by place:`,
  );
  // The profile's samples give shares; the CPU clock gives the total they are shares of.
  const share = (ms: number) => ms / where.totalMs;
  for (const [place, ms] of where.places.slice(0, 10))
    print(`    ${pad(place, 62)} ${f(share(ms) * 100, 0)}% ≈ ${f(share(ms) * mainPerSession, 1)} ms per session`);
  reportFigure({
    group: "Per session",
    name: "control-plane CPU per session (create → release, refill included)",
    value: perSession,
    unit: "ms",
    detail: `main process ${f(mainPerSession, 1)} ms, relay host ${f(hostPerSession, 1)} ms`,
  });

  const cmd = await call("createSession", api);
  await call("cdpOpen", { name: "cost", url: cmd.connectUrl });
  await call("cdpPipe", { name: "cost", n: pipeN });
  const c0 = process.cpuUsage();
  const h0 = relayHostCpuMs(t);
  for (let i = 0; i < 5; i++) await call("cdpPipe", { name: "cost", n: pipeN });
  const c1 = process.cpuUsage(c0);
  const hostPerCommand = ((relayHostCpuMs(t) - h0) * 1000) / (5 * pipeN);
  const commandProfile = await startCpuProfile();
  for (let i = 0; i < 3; i++) await call("cdpPipe", { name: "cost", n: pipeN });
  const commandWhere = await commandProfile.stop("commands");
  const mainPerCommand = (c1.user + c1.system) / (5 * pipeN);
  const perCommand = mainPerCommand + hostPerCommand;
  print(
    `    CPU per relayed command (pipelined Runtime.evaluate through /cdp): ${f(perCommand, 1)} µs (the node's main process ${f(mainPerCommand, 1)}, its relay host ${f(hostPerCommand, 1)})`,
  );
  for (const [place, ms] of commandWhere.places.slice(0, 6))
    print(`    ${pad(place, 62)} ${f((ms / commandWhere.totalMs) * 100, 0)}% ≈ ${f((ms / commandWhere.totalMs) * perCommand, 1)} µs per command`);
  reportFigure({
    group: "Per session",
    name: "node CPU per relayed CDP command",
    value: perCommand,
    unit: "µs",
    detail: `main process ${f(mainPerCommand, 1)}, relay host ${f(hostPerCommand, 1)} µs`,
  });
  await call("cdpClose", {});
  await call("releaseSession", { ...api, id: cmd.id });
}
