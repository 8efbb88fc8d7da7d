// What nodes hand each other (a placed create and its answer, a captured profile) may carry proxy
// passwords, connect tokens or cookies: it is sealed under a key of its own, bound to its purpose.
import { open as openSealed, seal as sealEnvelope } from "../crypto/envelope.ts";
import { deriveInternalKey } from "./internal-auth.ts";

export class PayloadSeal {
  /** AES-256-GCM key derived from the master key (HKDF, label `payloads`), shared by every node. */
  readonly key: Buffer;

  constructor(masterKey: Buffer) {
    this.key = deriveInternalKey(masterKey, "payloads");
  }

  /** A value sealed for another node, bound to `purpose` (base64). */
  sealJson(purpose: string, value: unknown): string {
    return sealEnvelope(this.key, Buffer.from(JSON.stringify(value)), purpose).toString("base64");
  }

  openJson(purpose: string, sealed: string): unknown {
    return JSON.parse(this.open(purpose, sealed).toString("utf8"));
  }

  /** The plaintext itself, for a caller that wipes it once read. */
  open(purpose: string, sealed: string): Buffer {
    return openSealed(this.key, Buffer.from(sealed, "base64"), purpose);
  }
}
