// Decision record 0272 (docs/decisions/0272-argon2-binding.md): the API-key hash through
// @node-rs/argon2 (a native binding) against what Node 20 has built in. Node 20 has no argon2
// (crypto.argon2 arrives in Node 24.7), so the built-in candidate is crypto.scrypt at OWASP's
// minimum (N = 2^17, r = 8, p = 1, or its 16 MiB equivalent N = 2^14, r = 8, p = 5), and no pure-JS
// or WASM argon2 is installed to compare with.
// Measured side by side in one process, interleaved rounds, medians:
//   - the wall time of one verification (what a request with a key not yet cached waits);
//   - the event loop's longest delay while verifications run (what every other socket waits);
//   - 8 verifications at once (a burst of new keys; libuv's pool has 4 threads by default).
//
//   npx tsx bench/decision-argon2.ts          BENCH_ROUNDS=7 BENCH_CALLS=10 to change the counts
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";
import os from "node:os";
import { hash, verify, verifySync } from "@node-rs/argon2";
import { ARGON2_OPTIONS } from "../src/auth/api-key-hash.ts";
import { f, median, num } from "./support.ts";

const rounds = num("BENCH_ROUNDS", 5);
const calls = num("BENCH_CALLS", 8);
const BURST = 8;

// OWASP Password Storage Cheat Sheet: scrypt with N = 2^17 (128 MiB), r = 8, p = 1 is the minimum,
// or an equal-strength form with less memory; N = 2^14, r = 8, p = 5 (16 MiB) is the nearest to
// argon2's 19 MiB.
const SCRYPT_128 = { N: 2 ** 17, r: 8, p: 1, maxmem: 256 * 1024 * 1024 } as const;
const SCRYPT_16 = { N: 2 ** 14, r: 8, p: 5, maxmem: 64 * 1024 * 1024 } as const;

const secret = randomBytes(24).toString("base64url");
const stored = await hash(secret, ARGON2_OPTIONS);
const salt = randomBytes(16);
const scryptHash = (s: string, options: typeof SCRYPT_128 | typeof SCRYPT_16) =>
  new Promise<Buffer>((resolve, reject) => scrypt(s, salt, 32, options, (err, key) => (err ? reject(err) : resolve(key))));
const stored128 = await scryptHash(secret, SCRYPT_128);
const stored16 = await scryptHash(secret, SCRYPT_16);
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

interface Candidate {
  name: string;
  verify(): Promise<boolean>;
}
const candidates: Candidate[] = [
  { name: "@node-rs/argon2 verify (argon2id m=19 MiB t=2 p=1)", verify: () => verify(stored, secret) },
  { name: "crypto.scrypt (N=2^17 r=8 p=1, 128 MiB)", verify: async () => timingSafeEqual(await scryptHash(secret, SCRYPT_128), stored128) },
  { name: "crypto.scrypt (N=2^14 r=8 p=5, 16 MiB)", verify: async () => timingSafeEqual(await scryptHash(secret, SCRYPT_16), stored16) },
  // The binding's synchronous form, to show what running it on the loop would cost.
  { name: "@node-rs/argon2 verifySync (on the loop)", verify: async () => verifySync(stored, secret) },
  // No hashing: a 20 ms wait, for the loop's own delay on this (shared) machine.
  { name: "baseline: setTimeout 20 ms, no hashing", verify: async () => (await sleep(20), true) },
];

/** Wall ms per call (sequential), the loop's longest delay (ms) meanwhile, and the wall ms of a burst. */
async function measure(c: Candidate): Promise<{ perCall: number; loopMax: number; burst: number }> {
  // The longest gap between the ticks of a 1 ms timer: how long the loop was held at once.
  let last = performance.now();
  let loopMax = 0;
  const probe = setInterval(() => {
    const now = performance.now();
    loopMax = Math.max(loopMax, now - last);
    last = now;
  }, 1);
  const times: number[] = [];
  for (let i = 0; i < calls; i++) {
    const t0 = performance.now();
    if (!(await c.verify())) throw new Error(`${c.name} did not verify`);
    times.push(performance.now() - t0);
    await sleep(2); // a turn of the loop between calls, as between two requests
  }
  const t0 = performance.now();
  await Promise.all(Array.from({ length: BURST }, () => c.verify()));
  const burst = performance.now() - t0;
  await sleep(5);
  clearInterval(probe);
  return { perCall: median(times), loopMax, burst };
}

const results = new Map<string, { perCall: number[]; loopMax: number[]; burst: number[] }>();
for (const c of candidates) results.set(c.name, { perCall: [], loopMax: [], burst: [] });
for (let r = 0; r < rounds; r++) {
  for (const c of r % 2 ? [...candidates].reverse() : candidates) {
    const m = await measure(c);
    const into = results.get(c.name)!;
    into.perCall.push(m.perCall);
    into.loopMax.push(m.loopMax);
    into.burst.push(m.burst);
  }
}

console.log(
  `node ${process.version}, ${os.cpus().length} CPUs, load average ${os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(" ")} (shared machine)`,
);
console.log(`${rounds} interleaved rounds, ${calls} sequential verifications and one burst of ${BURST} per round; medians of the rounds`);
console.log(`${"candidate".padEnd(52)} ${"ms/verify".padStart(10)} ${"loop max ms".padStart(12)} ${`burst of ${BURST} ms`.padStart(14)}`);
for (const [name, m] of results) {
  console.log(`${name.padEnd(52)} ${f(median(m.perCall)).padStart(10)} ${f(median(m.loopMax)).padStart(12)} ${f(median(m.burst)).padStart(14)}`);
}
const a = results.get(candidates[0]!.name)!;
for (const c of candidates.slice(1, 3)) {
  const s = results.get(c.name)!;
  console.log(`${c.name} ÷ argon2: ${f(median(s.perCall) / median(a.perCall), 2)}× per verification, ${f(median(s.burst) / median(a.burst), 2)}× per burst`);
}
