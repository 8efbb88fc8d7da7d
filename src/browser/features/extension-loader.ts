import fs from "node:fs";
import path from "node:path";
import { CdpClient } from "../cdp/pipe/client.ts";
import type { BrowserLease } from "../pool/types.ts";

/** One extension to load: its id (its folder's name in the browser's folder) and the prepared folder to copy. */
export interface PreparedExtension {
  id: string;
  folder: string;
}

/**
 * Copies each prepared extension into the browser's own folder and loads it (Extensions.loadUnpacked
 * over a channel of the node's own), before the session's first client: its content scripts then run
 * in every page the session opens. Only full Chromium started with --enable-unsafe-extension-debugging
 * (browser/launch/command.ts) can; a failure rejects, and the caller gives the browser up.
 *
 * A copy, not a link: the prepared folder is shared by every session of the node that loads the
 * extension, and a browser must not be able to change what the next one loads. The copy runs on the
 * thread pool (fs.promises), reflinked where the file system can; the folder is the browser's, not
 * yet any client's, and nothing in it is followed or overwritten (errorOnExist, a real folder checked).
 */
export async function loadExtensions(lease: BrowserLease, extensions: readonly PreparedExtension[]): Promise<string[]> {
  const root = path.join(path.dirname(lease.downloadsDir), "extensions");
  mkdirReal(root);
  const folders = await Promise.all(
    extensions.map(async (e) => {
      const target = path.join(root, e.id);
      if (path.dirname(target) !== root) throw new Error(`an extension id is not a plain name: ${e.id}`);
      await fs.promises.cp(e.folder, target, { recursive: true, errorOnExist: true, force: false, dereference: false, mode: fs.constants.COPYFILE_FICLONE });
      return target;
    }),
  );
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
