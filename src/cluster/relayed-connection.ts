// One relayed WebSocket connection (forward.ts): the client's socket on this node and the socket to
// the session's node, bytes passed untouched both ways, each direction followed frame by frame
// (ws-frames.ts) so that this node can end the connection properly: a close frame to the client, and
// one to the owner as the client would send it, each written between two frames. A drain that
// reaches its deadline closes its relays so (1001, going away), as the session's own node closes
// the sockets it serves; before issue 41 it destroyed them and clients saw 1006.
import type net from "node:net";
import type { Duplex } from "node:stream";
import { closeFrame, FrameCursor } from "./ws-frames.ts";

/** How long a close waits for a frame in progress to end and both sides to hang up before it cuts them. */
const CLOSE_WAIT_MS = 5_000;

export class RelayedConnection {
  readonly #client: Duplex;
  readonly #owner: net.Socket;
  readonly #toClient = new FrameCursor("head");
  readonly #toOwner = new FrameCursor("frames");
  /** Set once a close began: the close frame (and its code) waiting for each side's next boundary. */
  #closing: { code: number; reason: string; clientDone: boolean; ownerDone: boolean; finished: Promise<void> } | undefined;
  #ownerDetached = false;

  constructor(client: Duplex, owner: net.Socket) {
    this.#client = client;
    this.#owner = owner;
    owner.on("data", (chunk: Buffer) => this.#fromOwner(chunk));
  }

  /** A close is in progress: the sockets are ended by it, not cut by whoever hangs up first. */
  get closing(): boolean {
    return this.#closing !== undefined;
  }

  /** Client bytes for the owner; false when the owner's buffer is full (wait for its "drain"). */
  toOwner(chunk: Buffer): boolean {
    const closing = this.#closing;
    if (!closing) {
      this.#toOwner.advance(chunk);
      return this.#owner.write(chunk);
    }
    if (closing.ownerDone) return true; // what the client sends after the close is not the owner's
    const n = this.#toOwner.advance(chunk, true);
    if (n > 0) this.#owner.write(chunk.subarray(0, n));
    if (this.#toOwner.atBoundary) this.#endOwner();
    return true;
  }

  /** Stops passing the owner's bytes on (the owner is being dropped; forward.ts's stall check). */
  detachOwner(): void {
    this.#ownerDetached = true;
  }

  /** Whether a frame of this node's own may be written to the client now. */
  get clientAtBoundary(): boolean {
    return this.#toClient.atBoundary;
  }

  /**
   * Closes both sides with `code`: a close frame to each at its next frame boundary, then their
   * sockets are ended; cut after CLOSE_WAIT_MS (a frame that never ends, a peer that never hangs
   * up). A connection whose handshake has not finished is cut: there is no WebSocket to close yet.
   */
  close(code: number, reason: string): Promise<void> {
    if (this.#closing) return this.#closing.finished;
    let finish = () => {};
    const finished = new Promise<void>((resolve) => (finish = resolve));
    this.#closing = { code, reason, clientDone: false, ownerDone: false, finished };
    const cut = () => {
      clearTimeout(timer);
      this.#client.destroy();
      this.#owner.destroy();
      finish();
    };
    const timer = setTimeout(cut, CLOSE_WAIT_MS);
    timer.unref();
    let open = 2;
    const closed = () => --open === 0 && cut();
    for (const s of [this.#client, this.#owner]) {
      if (s.destroyed) closed();
      else s.once("close", closed);
    }
    if (!this.#toClient.upgraded) return (cut(), finished);
    if (this.#toClient.atBoundary) this.#endClient();
    if (this.#toOwner.atBoundary) this.#endOwner();
    return finished;
  }

  #fromOwner(chunk: Buffer): void {
    if (this.#ownerDetached) return;
    const closing = this.#closing;
    if (!closing) {
      this.#toClient.advance(chunk);
      if (!this.#client.write(chunk)) {
        this.#owner.pause();
        this.#client.once("drain", () => this.#owner.resume());
      }
      return;
    }
    if (closing.clientDone) return;
    const n = this.#toClient.advance(chunk, true);
    if (n > 0) this.#client.write(chunk.subarray(0, n));
    if (this.#toClient.atBoundary) this.#endClient();
  }

  #endClient(): void {
    const closing = this.#closing!;
    if (closing.clientDone) return;
    closing.clientDone = true;
    this.#client.end(closeFrame(closing.code, closing.reason));
  }

  #endOwner(): void {
    const closing = this.#closing!;
    if (closing.ownerDone) return;
    closing.ownerDone = true;
    // As the client would: masked. The owner answers with its close and hangs up.
    this.#owner.end(closeFrame(closing.code, closing.reason, true));
  }
}
