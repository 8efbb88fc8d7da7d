// The bench's plumbing: the client process every client runs in (sessions-client.ts), and a
// garbage-collected view of this process's memory.
import { fork, type ChildProcess } from "node:child_process";
import v8 from "node:v8";
import vm from "node:vm";
import type { OpName, Ops, ReplyMsg, RequestMsg } from "./sessions-client.ts";

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------------
// GC for the memory figures: --expose-gc when given, else switched on at run time.

function findGc(): { gc: (() => void) | undefined; how: string } {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (typeof exposed === "function") return { gc: exposed, how: "--expose-gc" };
  try {
    v8.setFlagsFromString("--expose-gc");
    const gc = vm.runInNewContext("gc") as unknown;
    if (typeof gc === "function") return { gc: gc as () => void, how: "v8.setFlagsFromString('--expose-gc')" };
  } catch {
    // fall through
  }
  return { gc: undefined, how: "NOT AVAILABLE: figures include uncollected garbage" };
}
const { gc, how } = findGc();
export const gcHow = how;

// ---------------------------------------------------------------------------------------------
// The client process

let child: ChildProcess | undefined;
let nextId = 1;
const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void; op: string }>();

export function startClient(): void {
  // fork inherits process.execArgv, which under tsx carries its loader, so the .ts child runs too.
  const c = (child = fork(new URL("./sessions-client.ts", import.meta.url), [], { stdio: ["ignore", "inherit", "inherit", "ipc"] }));
  c.on("message", (msg: ReplyMsg) => {
    const waiter = pending.get(msg.id);
    if (!waiter) return;
    pending.delete(msg.id);
    if (msg.ok) waiter.resolve(msg.result);
    else waiter.reject(new Error(`client ${waiter.op} failed: ${msg.error}`));
  });
  c.on("exit", (code, signal) => {
    for (const w of pending.values()) w.reject(new Error(`the client process exited (code ${code}, signal ${signal}) during ${w.op}`));
    pending.clear();
  });
}

export function call<K extends OpName>(op: K, args: Ops[K]["args"]): Promise<Ops[K]["result"]> {
  const c = child;
  if (!c?.connected) return Promise.reject(new Error(`the client process is not running (${op})`));
  const id = nextId++;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve: resolve as (v: unknown) => void, reject, op });
    c.send({ id, op, args } satisfies RequestMsg);
  });
}

export async function stopClient(): Promise<void> {
  if (child?.connected) await call("shutdown", {}).catch(() => {});
  child?.disconnect?.();
}

export async function memory(): Promise<NodeJS.MemoryUsage> {
  if (gc) {
    gc();
    await sleep(50);
    gc();
  }
  return process.memoryUsage();
}

export type MemoryDelta = { rss: number; heapUsed: number; external: number; arrayBuffers: number };

/**
 * (c) This process's memory growth per running session (each with a CDP client on /cdp and a page
 * loaded), one figure per round; round -1 is a warm-up whose baseline still holds earlier garbage.
 */
export async function memoryPerSession(opts: {
  api: { baseUrl: string; key: string };
  sessions: number;
  rounds: number;
  settle: () => Promise<void>;
}): Promise<MemoryDelta[]> {
  const deltas: MemoryDelta[] = [];
  for (let r = -1; r < opts.rounds; r++) {
    await opts.settle();
    const before = await memory();
    const ids: string[] = [];
    try {
      for (let i = 0; i < opts.sessions; i++) {
        const s = await call("createSession", opts.api);
        ids.push(s.id);
        // A running session as a client has it: a CDP connection through /cdp, a page loaded.
        await call("cdpOpen", { name: `mem${i}`, url: s.connectUrl, loadPage: true });
      }
      await opts.settle();
      const during = await memory();
      if (r >= 0)
        deltas.push({
          rss: (during.rss - before.rss) / opts.sessions,
          heapUsed: (during.heapUsed - before.heapUsed) / opts.sessions,
          external: (during.external - before.external) / opts.sessions,
          arrayBuffers: (during.arrayBuffers - before.arrayBuffers) / opts.sessions,
        });
    } finally {
      await call("cdpClose", {});
      for (const id of ids) await call("releaseSession", { ...opts.api, id });
    }
  }
  return deltas;
}
