/**
 * Calls refused at authentication (401: no, malformed, unknown, wrong or revoked credential; 429:
 * the key's budget spent, or too many failed attempts from an address) are audited too, but a flood
 * of them must not fill the table. Within each minute (one window per node, from its first refusal):
 *
 * - each (client address, key id) pair writes at most `perKey` rows (`auth.refused`); requests
 *   with no parseable key id count as one pair per address;
 * - each client address writes at most `perAddress` rows, whatever key ids it tries;
 * - the node writes at most `perNode` rows.
 *
 * Refusals beyond a limit are counted, and when the window ends one `auth.refused.summary` row per
 * status stands for them, at the level whose limit stopped them: (address, key) with the key's
 * workspace, the address alone, or the node alone; its `target` is how many refusals it counts.
 * So a node writes at most perNode + 2 × (perNode/perKey + perNode/perAddress + 1) rows a minute
 * (152 with the numbers below) however many addresses and keys a flood uses.
 *
 * What a row holds: the key's prefix `vs_<id>` when the id parses (never anything after it), the
 * key's workspace when such a key exists (so that workspace's admins see attempts on their keys;
 * otherwise the row is organization-level, for operators), the address, the status and the ids of
 * the request. The counts of a window not yet ended live in memory: a kill -9 loses them.
 */
import type { Logger } from "../../logger.ts";
import type { AuditRecord } from "./audit-row.ts";

export const refusalLimits = { perKey: 5, perAddress: 20, perNode: 100 };
const windowMs = 60_000;
/** A refusal waits at most this long for its key's workspace (the database may be what is failing). */
const lookupTimeoutMs = 1_000;

export const REFUSED = "auth.refused";
export const REFUSED_SUMMARY = "auth.refused.summary";

export interface Refusal {
  status: number;
  /** The client address; null when unknown. */
  ip: string | null;
  /** `vs_<id>` of the presented key when its id parses, else null. */
  keyPrefix: string | null;
  /** The key's workspace when the key verified (then its budget or revocation refused it); otherwise looked up. */
  workspaceId?: string | null;
  requestId: string | null;
  clientRequestId: string | null;
}

interface Tally {
  rows: number;
  /** Refusals not written, per status. */
  suppressed: Map<number, number>;
  lastAt: Date;
}

interface KeyTally extends Tally {
  ip: string | null;
  keyPrefix: string | null;
  /** Looked up once per window, at the pair's first row. */
  workspace: Promise<string | null> | undefined;
}

export interface RefusalAuditDeps {
  enqueue(record: AuditRecord): void;
  /** The workspace of the key with this id, or null if there is none. */
  workspaceOfKey(keyId: string): Promise<string | null>;
  now(): Date;
  log: Logger;
  limits?: Partial<typeof refusalLimits>;
}

const newTally = (at: Date): Tally => ({ rows: 0, suppressed: new Map(), lastAt: at });

export class RefusalAudit {
  readonly #deps: RefusalAuditDeps;
  readonly #limits: typeof refusalLimits;
  #windowEnds = 0;
  #timer: NodeJS.Timeout | undefined;
  #byKey = new Map<string, KeyTally>();
  #byAddress = new Map<string, Tally>();
  #node: Tally = newTally(new Date(0));

  constructor(deps: RefusalAuditDeps) {
    this.#deps = deps;
    this.#limits = { ...refusalLimits, ...deps.limits };
  }

  /**
   * Counts a refusal and writes its row if no limit stopped it. Resolves once the row is handed to
   * the audit writer (which journals it), so a caller that waits answers only after that; never rejects.
   */
  async record(refusal: Refusal): Promise<void> {
    try {
      const at = this.#deps.now();
      if (at.getTime() >= this.#windowEnds) this.#startWindow(at);
      const ip = refusal.ip || null;
      const pairKey = `${ip ?? ""}\u0000${refusal.keyPrefix ?? ""}`;
      const pair = this.#byKey.get(pairKey);
      if (pair && pair.rows >= this.#limits.perKey) return count(pair, refusal.status, at);
      const address = this.#byAddress.get(ip ?? "") ?? newTally(at);
      if (address.rows >= this.#limits.perAddress) return count(address, refusal.status, at);
      if (this.#node.rows >= this.#limits.perNode) return count(this.#node, refusal.status, at);

      const tally = pair ?? { ...newTally(at), ip, keyPrefix: refusal.keyPrefix, workspace: undefined };
      this.#byKey.set(pairKey, tally);
      this.#byAddress.set(ip ?? "", address);
      tally.rows++;
      address.rows++;
      this.#node.rows++;
      if (refusal.workspaceId !== undefined) tally.workspace ??= Promise.resolve(refusal.workspaceId);
      tally.workspace ??= this.#lookUp(refusal.keyPrefix);
      const workspaceId = await tally.workspace;
      this.#deps.enqueue({
        workspaceId,
        keyPrefix: refusal.keyPrefix,
        actorUserId: null,
        action: REFUSED,
        target: null,
        httpStatus: refusal.status,
        requestId: refusal.requestId,
        clientRequestId: refusal.clientRequestId,
        ip,
        at,
      });
    } catch (err) {
      this.#deps.log.error({ err }, "a refused call could not be audited");
    }
  }

  /** Writes the summaries of the current window now (at shutdown). */
  async close(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#endWindow();
    this.#windowEnds = 0;
  }

  #startWindow(at: Date): void {
    void this.#endWindow();
    this.#windowEnds = at.getTime() + windowMs;
    if (this.#timer) clearTimeout(this.#timer);
    // A quiet node still writes the last window's summaries when it ends; nothing waits for this timer.
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#windowEnds = 0;
      void this.#endWindow();
    }, windowMs);
    this.#timer.unref();
  }

  /** Hands the window's summaries to the writer and starts counting afresh. */
  async #endWindow(): Promise<void> {
    const byKey = this.#byKey;
    const byAddress = this.#byAddress;
    const node = this.#node;
    this.#byKey = new Map();
    this.#byAddress = new Map();
    this.#node = newTally(new Date(0));
    for (const pair of byKey.values()) {
      if (pair.suppressed.size === 0) continue;
      this.#summarize(pair, pair.ip, pair.keyPrefix, await (pair.workspace ?? Promise.resolve(null)));
    }
    for (const [ip, address] of byAddress) this.#summarize(address, ip || null, null, null);
    this.#summarize(node, null, null, null);
  }

  #summarize(tally: Tally, ip: string | null, keyPrefix: string | null, workspaceId: string | null): void {
    for (const [status, n] of tally.suppressed) {
      this.#deps.enqueue({
        workspaceId,
        keyPrefix,
        actorUserId: null,
        action: REFUSED_SUMMARY,
        target: String(n),
        httpStatus: status,
        requestId: null,
        ip,
        at: tally.lastAt,
      });
    }
  }

  async #lookUp(keyPrefix: string | null): Promise<string | null> {
    if (!keyPrefix) return null;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), lookupTimeoutMs);
    });
    try {
      return await Promise.race([this.#deps.workspaceOfKey(keyPrefix.slice(3)), timeout]);
    } catch (err) {
      this.#deps.log.warn({ err }, "the workspace of a refused key could not be read; its refusal is filed without one");
      return null;
    } finally {
      clearTimeout(timer);
    }
  }
}

function count(tally: Tally, status: number, at: Date): void {
  tally.suppressed.set(status, (tally.suppressed.get(status) ?? 0) + 1);
  tally.lastAt = at;
}
