import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parentPort } from "node:worker_threads";
import { ArchiveRefused, readArchive } from "./extension-archive.ts";
import { checkManifest } from "./extension-manifest.ts";
import type { PrepareReply, PrepareRequest } from "./extension-zip-thread.ts";

// The extension thread's body (extension-zip-thread.ts starts it): an uploaded zip is read, checked
// and unpacked into its prepared folder here, off the node's event loop. One request at a time.

const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = fs.constants;

// This thread yields the CPU to everything else of the node (nice 19): on a busy machine the event
// loop, not the unpacking, gets the core. Linux sets a nice value per thread; /proc/thread-self names
// this one's id. Elsewhere (or without /proc) it stays as it is.
try {
  const tid = Number(/task\/(\d+)$/.exec(fs.readlinkSync("/proc/thread-self"))?.[1]);
  if (tid > 0) os.setPriority(tid, 19);
} catch {
  // no per-thread priority here: the thread still keeps the zip off the event loop
}

parentPort!.on("message", (request: PrepareRequest) => {
  parentPort!.postMessage(prepare(request));
});

function prepare({ seq, zip, folder, sha256 }: PrepareRequest): PrepareReply {
  const partial = `${folder}.partial-${randomBytes(6).toString("hex")}`;
  try {
    const bytes = Buffer.from(zip.buffer, zip.byteOffset, zip.byteLength);
    const digest = createHash("sha256").update(bytes).digest("hex");
    if (sha256 !== undefined && digest !== sha256) return { seq, kind: "failed", message: "the stored zip does not match its digest" };
    const entries = readArchive(bytes);
    const names = entries.filter((e) => !e.folder).map((e) => e.name);
    const top = names.includes("manifest.json") ? "" : commonFolder(names);
    const manifestEntry = entries.find((e) => e.name === `${top}manifest.json`);
    if (!manifestEntry) return { seq, kind: "invalid", why: "there is no manifest.json at its top" };
    // The manifest first: a refused permission costs no inflating of the rest.
    const manifest = checkManifest(manifestEntry.read());
    if ("kind" in manifest) return { seq, ...manifest };
    fs.mkdirSync(partial, { mode: 0o755 });
    let bytesOut = 0;
    let files = 0;
    for (const entry of entries) {
      if (!entry.name.startsWith(top) || entry.name === top) continue;
      const target = path.join(partial, entry.name.slice(top.length));
      // readArchive allows plain relative names only; this is the last word on staying inside.
      if (!target.startsWith(partial + path.sep))
        return { seq, kind: "invalid", why: `the entry ${JSON.stringify(entry.name.slice(0, 80))} leaves its folder` };
      if (entry.folder) {
        fs.mkdirSync(target, { recursive: true, mode: 0o755 });
        continue;
      }
      const data = entry.read();
      fs.mkdirSync(path.dirname(target), { recursive: true, mode: 0o755 });
      const fd = fs.openSync(target, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o644);
      try {
        fs.writeSync(fd, data);
      } finally {
        fs.closeSync(fd);
      }
      bytesOut += data.length;
      files += 1;
    }
    fs.rmSync(folder, { recursive: true, force: true }); // a copy a failed earlier attempt may have left
    fs.renameSync(partial, folder);
    return { seq, kind: "prepared", name: manifest.name, version: manifest.version, sha256: digest, files, bytes: bytesOut };
  } catch (err) {
    if (err instanceof ArchiveRefused) return { seq, kind: "invalid", why: err.message };
    // A name clash inside the zip (a file and a folder of one name) is the zip's fault too.
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EEXIST" || code === "ENOTDIR" || code === "EISDIR") return { seq, kind: "invalid", why: "two of its entries are at the same path" };
    return { seq, kind: "failed", message: err instanceof Error ? err.message : String(err) };
  } finally {
    fs.rmSync(partial, { recursive: true, force: true }); // gone already once renamed
  }
}

/** `folder/` when every name is inside that one folder, else "". */
function commonFolder(names: string[]): string {
  const first = names[0]?.split("/")[0];
  return first && names.every((n) => n.startsWith(`${first}/`)) ? `${first}/` : "";
}
