import fs from "node:fs";
import path from "node:path";
import { Readable } from "node:stream";
import type { Config } from "../../config.ts";
import { openChunk, sealChunk, SEALED_CHUNK_OVERHEAD } from "../../crypto/recording-crypto.ts";
import type { PrismaClient } from "../../generated/prisma/client.ts";

/**
 * Where a recording's sealed chunks live (recording-crypto.ts seals them):
 *
 * - `database` (PostgreSQL deployments): a row per chunk in `recording_chunks`, so any node serves a
 *   recording, after the node that made it has drained or died.
 * - `file` (the embedded default, one node): `<data dir>/recordings/<session id>.vrec`, the sealed
 *   chunks one after the other, each `chunk_bytes` + 28 bytes long (the last may be shorter), so
 *   chunk i starts at i × (chunk_bytes + 28) and a range needs no index.
 */

export type Storage = "file" | "database";

/** How many sealed chunks one insert carries (a chunk is 1 MiB). */
const CHUNKS_PER_INSERT = 4;

export interface StoredRecording {
  sessionId: string;
  storage: string;
  chunkBytes: number;
}

/** PostgreSQL: the database (shared by every node). PGlite: the data folder, unless that is in memory. */
export function storageFor(databaseKind: "postgres" | "pglite", config: Pick<Config, "database">): Storage {
  return databaseKind === "postgres" || config.database.dataDir.startsWith("memory://") ? "database" : "file";
}

export function recordingFile(config: Pick<Config, "database">, sessionId: string): string {
  return path.join(path.resolve(config.database.dataDir), "recordings", `${sessionId}.vrec`);
}

/** Fills `buffer` from the file's position (short only at its end). */
async function readFull(file: fs.promises.FileHandle, buffer: Buffer): Promise<number> {
  let filled = 0;
  while (filled < buffer.length) {
    const { bytesRead } = await file.read(buffer, filled, buffer.length - filled, null);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return filled;
}

const u8 = (b: Buffer) => new Uint8Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength)) as Uint8Array<ArrayBuffer>;

/** Seals the plaintext file `source` chunk by chunk into the recording's storage; answers its size in bytes. */
export async function storeSealed(
  deps: { prisma: PrismaClient; config: Pick<Config, "database"> },
  rec: StoredRecording,
  dataKey: Buffer,
  source: string,
): Promise<number> {
  const input = await fs.promises.open(source, "r");
  const target = rec.storage === "file" ? recordingFile(deps.config, rec.sessionId) : undefined;
  const partial = target ? `${target}.partial` : undefined;
  let output: fs.promises.FileHandle | undefined;
  try {
    if (partial) {
      await fs.promises.mkdir(path.dirname(partial), { recursive: true, mode: 0o700 });
      output = await fs.promises.open(partial, "w", 0o600);
    }
    let size = 0;
    let batch: Array<{ sessionId: string; idx: number; data: Uint8Array<ArrayBuffer> }> = [];
    const buffer = Buffer.alloc(rec.chunkBytes);
    for (let idx = 0; ; idx++) {
      const bytesRead = await readFull(input, buffer);
      if (bytesRead === 0) break;
      size += bytesRead;
      const sealed = sealChunk(dataKey, rec.sessionId, idx, buffer.subarray(0, bytesRead));
      if (output) await output.write(sealed);
      else batch.push({ sessionId: rec.sessionId, idx, data: u8(sealed) });
      if (batch.length >= CHUNKS_PER_INSERT) {
        await deps.prisma.recordingChunk.createMany({ data: batch });
        batch = [];
      }
      if (bytesRead < rec.chunkBytes) break;
    }
    if (batch.length > 0) await deps.prisma.recordingChunk.createMany({ data: batch });
    buffer.fill(0);
    if (output && partial && target) {
      await output.sync();
      await output.close();
      output = undefined;
      await fs.promises.rename(partial, target);
    }
    return size;
  } finally {
    await input.close();
    if (output) {
      await output.close().catch(() => {});
      await fs.promises.rm(partial!, { force: true });
    }
  }
}

/** Deletes what storeSealed wrote (the row itself is the caller's); nothing there is fine. */
export async function removeStored(
  deps: { prisma: PrismaClient; config: Pick<Config, "database"> },
  rec: Pick<StoredRecording, "sessionId" | "storage">,
): Promise<void> {
  if (rec.storage === "file") {
    const file = recordingFile(deps.config, rec.sessionId);
    await Promise.all([fs.promises.rm(file, { force: true }), fs.promises.rm(`${file}.partial`, { force: true })]);
  } else {
    await deps.prisma.recordingChunk.deleteMany({ where: { sessionId: rec.sessionId } });
  }
}

/**
 * Bytes `start`…`end` (inclusive) of the recording's plaintext, decrypting only the chunks they
 * cover, one at a time as the reader takes them. `dataKey` is zeroed when the stream ends, however it ends.
 */
export function readRange(
  deps: { prisma: PrismaClient; config: Pick<Config, "database"> },
  rec: StoredRecording & { sizeBytes: number },
  dataKey: Buffer,
  start: number,
  end: number,
): Readable {
  const first = Math.floor(start / rec.chunkBytes);
  const last = Math.floor(end / rec.chunkBytes);
  const sealedLength = (idx: number) => Math.min(rec.chunkBytes, rec.sizeBytes - idx * rec.chunkBytes) + SEALED_CHUNK_OVERHEAD;
  async function* chunks(): AsyncGenerator<Buffer> {
    const file = rec.storage === "file" ? await fs.promises.open(recordingFile(deps.config, rec.sessionId), "r") : undefined;
    try {
      for (let idx = first; idx <= last; idx++) {
        let sealed: Uint8Array;
        if (file) {
          const length = sealedLength(idx);
          const buffer = Buffer.alloc(length);
          const { bytesRead } = await file.read(buffer, 0, length, idx * (rec.chunkBytes + SEALED_CHUNK_OVERHEAD));
          if (bytesRead !== length) throw new Error(`recording ${rec.sessionId}: chunk ${idx} is short`);
          sealed = buffer;
        } else {
          const row = await deps.prisma.recordingChunk.findUnique({ where: { sessionId_idx: { sessionId: rec.sessionId, idx } } });
          if (!row) throw new Error(`recording ${rec.sessionId}: chunk ${idx} is missing`);
          sealed = row.data;
        }
        const plain = openChunk(dataKey, rec.sessionId, idx, sealed);
        const from = idx === first ? start - idx * rec.chunkBytes : 0;
        const to = idx === last ? end - idx * rec.chunkBytes + 1 : plain.length;
        yield plain.subarray(from, to);
      }
    } finally {
      dataKey.fill(0);
      await file?.close();
    }
  }
  const stream = Readable.from(chunks(), { objectMode: false });
  // A reader that leaves before the first chunk never runs the generator's finally.
  stream.once("close", () => dataKey.fill(0));
  return stream;
}
