import fs from "node:fs/promises";
import path from "node:path";
import { prepareOffLoop, type PrepareResult } from "./extension-zip-thread.ts";

/**
 * This node's prepared extensions: each stored extension's zip checked and unpacked once, into a
 * folder of this node's own (mode 0700, outside every jail), so creating a session with it only
 * copies that folder into the session's browser folder; nothing is read from the database or
 * inflated per create. The upload's node prepares it as it checks the upload; another node, or this
 * one after a restart, prepares it at the first create that names it, from the sealed zip and its
 * digest (and checks it again: one stored before a rule existed meets the rule there). Prepared
 * folders live as long as the node (emptied at start) or the extension (dropped on every node when
 * it is deleted: the deleting node publishes its id on {@link extensionDeletions}).
 */
/** The pub/sub channel on which a deleted extension's id reaches every node. */
export const extensionDeletions = "extension-deletions";

export class PreparedExtensions {
  /** Per extension and digest: its prepared folder, once ready (shared by concurrent creates). */
  readonly #ready = new Map<string, Promise<string>>();
  constructor(
    readonly root: string,
    /** Called for each zip this node reads and unpacks (the metric vessel_extension_zips_unpacked_total). */
    private readonly onUnpacked: () => void = () => {},
  ) {}

  /** At start: what a previous run left is dropped (it is prepared again when needed). */
  async start(): Promise<void> {
    this.#ready.clear();
    await fs.rm(this.root, { recursive: true, force: true });
    await fs.mkdir(this.root, { recursive: true, mode: 0o700 });
  }

  #folder(id: string, sha256?: string): string {
    return path.join(this.root, sha256 ? `${id}-${sha256.slice(0, 16)}` : `${id}-upload`);
  }

  /**
   * An upload: checks and unpacks `zip` off the event loop, and keeps the folder for the row about to
   * be stored; `discard` drops it when the upload fails after all.
   */
  async check(id: string, zip: Uint8Array): Promise<{ result: PrepareResult; discard(): Promise<void> }> {
    await fs.mkdir(this.root, { recursive: true, mode: 0o700 });
    const upload = this.#folder(id);
    const result = await prepareOffLoop(zip, upload);
    this.onUnpacked();
    if (result.kind !== "prepared") return { result, discard: async () => {} };
    const final = this.#folder(id, result.sha256);
    const renamed = fs.rename(upload, final);
    this.#ready.set(
      `${id}:${result.sha256}`,
      renamed.then(() => final),
    );
    renamed.catch(() => this.#ready.delete(`${id}:${result.sha256}`));
    return {
      result,
      discard: async () => {
        this.#ready.delete(`${id}:${result.sha256}`);
        await renamed.catch(() => {});
        await fs.rm(final, { recursive: true, force: true });
        await fs.rm(upload, { recursive: true, force: true });
      },
    };
  }

  /**
   * The prepared folder of a stored extension, prepared here first if this node has none: `zip`
   * reads its sealed zip (only then). Rejects with what is wrong with it (`invalid`, `refused`).
   */
  async folder(id: string, sha256: string, zip: () => Promise<Uint8Array>): Promise<string> {
    const key = `${id}:${sha256}`;
    const known = this.#ready.get(key);
    if (known) {
      const folder = await known;
      // Something outside Vessel may clean the temp folder (tmpfiles): then it is prepared again.
      if (
        await fs.stat(path.join(folder, "manifest.json")).then(
          () => true,
          () => false,
        )
      )
        return folder;
      if (this.#ready.get(key) === known) this.#ready.delete(key);
    }
    let ready = this.#ready.get(key);
    if (!ready) {
      ready = (async () => {
        await fs.mkdir(this.root, { recursive: true, mode: 0o700 });
        const folder = this.#folder(id, sha256);
        const result = await prepareOffLoop(await zip(), folder, sha256);
        this.onUnpacked();
        if (result.kind !== "prepared") throw new PreparedRefusal(result);
        return folder;
      })();
      this.#ready.set(key, ready);
      ready.catch(() => this.#ready.delete(key));
    }
    return ready;
  }

  /** The extension was deleted: this node's copy goes. */
  async drop(id: string): Promise<void> {
    for (const key of [...this.#ready.keys()]) if (key.startsWith(`${id}:`)) this.#ready.delete(key);
    const names = await fs.readdir(this.root).catch(() => [] as string[]);
    await Promise.all(names.filter((n) => n.startsWith(`${id}-`)).map((n) => fs.rm(path.join(this.root, n), { recursive: true, force: true })));
  }
}

/** A stored extension this node cannot prepare: what the check found. */
export class PreparedRefusal extends Error {
  constructor(readonly result: Exclude<PrepareResult, { kind: "prepared" }>) {
    super(result.kind === "invalid" ? result.why : `${result.permission}: ${result.why}`);
  }
}
