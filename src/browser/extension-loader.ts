import fs from "node:fs";
import path from "node:path";
import { CdpClient } from "./cdp-client.ts";
import type { BrowserLease } from "./pool-types.ts";

/** One extension to load: its id (the folder's name) and its files, relative paths to bytes. */
export interface UnpackedExtension {
  id: string;
  files: ReadonlyMap<string, Uint8Array>;
}

const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = fs.constants;

/**
 * Writes each extension into the browser's own folder and loads it (Extensions.loadUnpacked over a
 * channel of the node's own), before the session's first client: its content scripts then run in
 * every page the session opens. Only full Chromium started with --enable-unsafe-extension-debugging
 * (chromium-command.ts) can; a failure rejects, and the caller gives the browser up.
 *
 * The folder is the browser's, not yet any client's (a spare, or a fresh launch): still, nothing is
 * followed or overwritten (O_EXCL | O_NOFOLLOW, every folder checked to be a real one).
 */
export async function loadExtensions(lease: BrowserLease, extensions: readonly UnpackedExtension[]): Promise<string[]> {
  const root = path.join(path.dirname(lease.downloadsDir), "extensions");
  mkdirReal(root);
  const folders = extensions.map((e) => writeExtension(root, e));
  const cdp = await CdpClient.open(lease.cdp);
  try {
    const ids: string[] = [];
    for (const folder of folders) ids.push((await cdp.send<{ id: string }>("Extensions.loadUnpacked", { path: folder })).id);
    return ids;
  } finally {
    cdp.close();
  }
}

function mkdirReal(dir: string): void {
  try {
    fs.mkdirSync(dir, { mode: 0o755 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  }
  if (!fs.lstatSync(dir).isDirectory()) throw new Error(`${dir} is not a folder`);
}

function writeExtension(root: string, extension: UnpackedExtension): string {
  const folder = path.join(root, extension.id);
  mkdirReal(folder);
  for (const [name, bytes] of extension.files) {
    const target = path.resolve(folder, name);
    // The service checked every name; this is the last word on staying inside the folder.
    if (!target.startsWith(folder + path.sep)) throw new Error(`an extension file would leave its folder: ${name}`);
    let dir = folder;
    for (const part of path.relative(folder, path.dirname(target)).split(path.sep).filter(Boolean)) mkdirReal((dir = path.join(dir, part)));
    const fd = fs.openSync(target, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o644);
    try {
      fs.writeSync(fd, bytes);
    } finally {
      fs.closeSync(fd);
    }
  }
  return folder;
}
