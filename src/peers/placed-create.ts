// The call that runs a create on a peer node (services/sessions/placement.ts decides which node;
// cluster/internal-api.ts answers it there): signed, sealed both ways, and acknowledged.
import type { InternalAuth } from "./internal-auth.ts";
import type { PayloadSeal } from "./payload-seal.ts";
import { type PeerAddress, postWithAck } from "./peer-calls.ts";

/** The internal route of a placed create. */
export const placedCreatePath = "/internal/v1/sessions";

/** What the peer answered: its opened answer, or (not 200, or nothing sealed) the problem it refused with, and its whole body. */
export type PlacedCreateReply = { ok: true; answer: unknown } | { ok: false; status: number; problem: unknown; body: unknown };

export class PlacedCreates {
  readonly #auth: InternalAuth;
  readonly #seal: PayloadSeal;

  constructor(auth: InternalAuth, seal: PayloadSeal) {
    this.#auth = auth;
    this.#seal = seal;
  }

  /**
   * Sends a create to `node`: sealed (the request may carry a proxy password, the answer carries
   * connect tokens), signed for that node, acknowledged within `ackMs` and answered within
   * `answerMs` (postWithAck). Throws PeerUnreached when it got no word in time ("connect": the
   * request never left, so another node may be tried).
   */
  async sendCreate(node: PeerAddress, request: unknown, deadlines: { ackMs: number; answerMs: number }): Promise<PlacedCreateReply> {
    const path = placedCreatePath;
    const body = JSON.stringify({ sealed: this.#seal.sealJson(path, request) });
    const headers = { "content-type": "application/json", ...this.#auth.sign(node.id, "POST", path, body) };
    const res = await postWithAck(`${node.internalUrl}${path}`, headers, body, deadlines);
    const raw = res.json as { sealed?: string; problem?: unknown };
    if (res.status !== 200 || typeof raw.sealed !== "string") return { ok: false, status: res.status, problem: raw.problem, body: raw };
    return { ok: true, answer: this.#seal.openJson(`answer:${path}`, raw.sealed) };
  }
}
