import { randomFillSync } from "node:crypto";
import { monotonicFactory as ulidMonotonicFactory, ulid as ulidWith } from "ulid";

// The ulid package, left to itself, looks up its random source on every call and then asks the
// system for one byte per character (16 calls per id): ~0.5 ms of this process's CPU per session
// (request ids, event and audit ids) in bench/sessions' profile. The same system source (a CSPRNG),
// drawn 4 KiB at a time, gives the same ids.
const pool = Buffer.alloc(4096);
let next = pool.length;

/** A uniform fraction in [0, 1) in steps of 1/256 (the ulid package's own resolution). */
function prng(): number {
  if (next === pool.length) {
    randomFillSync(pool);
    next = 0;
  }
  return pool[next++]! / 256;
}

/** A new ULID (time now, or `seedTime`). */
export function ulid(seedTime?: number): string {
  return ulidWith(seedTime, prng);
}

/** ULIDs that increase within this process even when made in the same millisecond. */
export function monotonicFactory(): (seedTime?: number) => string {
  return ulidMonotonicFactory(prng);
}
