import type { AppDeps } from "../../kernel/context.ts";

/** Where nodes tell each other that a workspace's endpoints changed (Redis pub/sub across nodes). */
export const ENDPOINTS_CHANGED = "webhook-endpoints-changed";
/** How long an answer is believed without a word from another node. */
const TRUST_MS = 10_000;

/**
 * Whether any webhook endpoint is enabled in the deployment, so that while none is, a session's
 * start and end cost no statement for webhooks (on the embedded database each costs this process
 * about half a millisecond of CPU). The answer is remembered: a change on this node forgets it at
 * once, a change on another node through pub/sub, and it is read again after 10 s regardless (a
 * deployment of several nodes without Redis would otherwise never hear of another node's endpoint).
 * A stale "some" only costs the look-up it would have saved; a stale "none" is what the forgetting prevents.
 */
export class EndpointPresence {
  private known: { any: boolean; at: number } | undefined;
  /** Bumped by every change heard of: a read begun before one must not conclude "none". */
  private generation = 0;
  private readonly stop: () => void;

  constructor(private readonly deps: Pick<AppDeps, "db" | "pubsub" | "log">) {
    this.stop = deps.pubsub.subscribe(ENDPOINTS_CHANGED, () => this.forget());
  }

  async any(): Promise<boolean> {
    if (this.known && performance.now() - this.known.at < TRUST_MS) return this.known.any;
    const generation = this.generation;
    const found = await this.deps.db.prisma.webhookEndpoint.findFirst({ where: { enabled: true }, select: { id: true } });
    if (generation === this.generation) this.known = { any: found !== null, at: performance.now() };
    return found !== null;
  }

  forget(): void {
    this.generation++;
    this.known = undefined;
  }

  /** After this node changed an endpoint: every node forgets. */
  changed(): void {
    this.forget();
    void this.deps.pubsub
      .publish(ENDPOINTS_CHANGED, "1")
      .catch((err: unknown) => this.deps.log.warn({ err }, "could not tell other nodes of a webhook change"));
  }

  close(): void {
    this.stop();
  }
}
