import { randomBytes } from "node:crypto";
import { Transform, type TransformCallback } from "node:stream";
import { downloadBehaviourContext, plainlyHarmless, policyRefusal, redirectedDownloads, type CdpMessage } from "./cdp-policy.ts";

/** Removes (or applies) a client frame's mask: the payload as the client wrote it. */
function unmask(payload: Buffer, key: Buffer): Buffer {
  const out = Buffer.allocUnsafe(payload.length);
  for (let i = 0; i < payload.length; i++) out[i] = payload[i]! ^ key[i & 3]!;
  return out;
}

/** A masked, final text frame (what a client must send) carrying `text`. */
function textFrame(text: string): Buffer {
  const payload = Buffer.from(text, "utf8");
  const key = randomBytes(4);
  const n = payload.length;
  const header = n < 126 ? Buffer.from([0x81, 0x80 | n]) : n < 65536 ? Buffer.from([0x81, 0x80 | 126, n >> 8, n & 255]) : Buffer.alloc(10);
  if (n >= 65536) {
    header[0] = 0x81;
    header[1] = 0x80 | 127;
    header.writeBigUInt64BE(BigInt(n), 2);
  }
  return Buffer.concat([header, key, unmask(payload, key)]);
}

export interface FilterOptions {
  /** The session's own download folder: the only place downloads and uploads may use. */
  downloads: string;
  onRefused(method: string, reason: string): void;
  /** A download folder was replaced by the session's own. */
  onRedirected?(method: string): void;
  /** A client set the download behaviour of a browser context (null: the default one), and it was let through. */
  onDownloadBehaviour?(context: string | null): void;
  /** Largest message accepted (Chromium's own limit is far below this). */
  maxMessageBytes?: number;
}

/**
 * The client→Chromium half of the CDP proxy as a frame-aware filter. Frames pass through as the
 * client wrote them (no re-encoding); a text message is unmasked only to be searched for a few
 * markers, and parsed only when one is present (security.md I49–I55). A refused command is replaced
 * by a call to a method Chromium does not have, named after the reason: Chromium answers it with a
 * CDP error carrying the client's own id (and sessionId), in order, and the connection stays up.
 * The other direction stays a plain byte pipe.
 *
 * A plain class fed chunk by chunk, handing what to send to `emit`: the proxy calls it from the
 * socket's data handler, with no stream in between (each stream stage costs a round trip time).
 */
export class CdpFrameFilter {
  private buffered: Buffer = Buffer.alloc(0);
  /** Frames of a fragmented text message, held until its last fragment. */
  private fragments: { raw: Buffer[]; payload: Buffer[]; size: number } | null = null;
  private readonly maxMessageBytes: number;

  constructor(
    private readonly options: FilterOptions,
    private readonly emit: (bytes: Buffer) => void,
  ) {
    this.maxMessageBytes = options.maxMessageBytes ?? 256 * 1024 * 1024;
  }

  /** Takes the next bytes from the client; throws on a frame over the size limit. */
  feed(chunk: Buffer): void {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    this.drain();
  }

  private drain(): void {
    let offset = 0;
    let runStart = 0;
    const buf = this.buffered;
    while (buf.length - offset >= 2) {
      const b0 = buf[offset]!;
      const b1 = buf[offset + 1]!;
      let length = b1 & 0x7f;
      let header = 2;
      if (length === 126) {
        if (buf.length - offset < 4) break;
        length = buf.readUInt16BE(offset + 2);
        header = 4;
      } else if (length === 127) {
        if (buf.length - offset < 10) break;
        const big = buf.readBigUInt64BE(offset + 2);
        if (big > BigInt(this.maxMessageBytes)) throw new Error("CDP frame too large");
        length = Number(big);
        header = 10;
      }
      const masked = (b1 & 0x80) !== 0;
      const keyAt = offset + header;
      const payloadAt = keyAt + (masked ? 4 : 0);
      const end = payloadAt + length;
      if (buf.length < end) break;
      const raw = buf.subarray(offset, end);
      const out = this.frame(b0, raw, masked ? buf.subarray(keyAt, payloadAt) : null, buf.subarray(payloadAt, end));
      if (out !== raw) {
        // Something other than this frame as it came: send what passed before it, then that.
        if (runStart < offset) this.emit(buf.subarray(runStart, offset));
        if (out) this.emit(out);
        runStart = end;
      }
      offset = end;
    }
    // Frames that pass untouched go on together, one write per chunk rather than one per frame
    // (a pipelining client sends many per chunk).
    if (runStart < offset) this.emit(buf.subarray(runStart, offset));
    this.buffered = offset === buf.length ? Buffer.alloc(0) : buf.subarray(offset);
  }

  /** What to send for one frame: `raw` itself when it passes as it came, another buffer, or null (held). */
  private frame(b0: number, raw: Buffer, key: Buffer | null, payload: Buffer): Buffer | null {
    const fin = (b0 & 0x80) !== 0;
    const opcode = b0 & 0x0f;
    const text = () => (key ? unmask(payload, key) : payload);
    if (opcode >= 0x8) return raw; // control frames may come between fragments
    if (opcode === 0x1 && fin) return this.judge([raw], text());
    if (opcode === 0x1) {
      this.fragments = { raw: [raw], payload: [text()], size: payload.length };
      return null;
    }
    if (opcode === 0x0 && this.fragments) {
      const f = this.fragments;
      f.raw.push(raw);
      f.payload.push(text());
      f.size += payload.length;
      if (f.size > this.maxMessageBytes) throw new Error("CDP message too large");
      if (!fin) return null;
      this.fragments = null;
      return this.judge(f.raw, Buffer.concat(f.payload));
    }
    return raw; // binary messages (CDP has none) and anything else pass untouched
  }

  /** The frames to send on for one whole text message: the client's own, or a stand-in call. */
  private judge(raw: Buffer[], message: Buffer): Buffer {
    const original = raw.length === 1 ? raw[0]! : Buffer.concat(raw);
    if (plainlyHarmless(message)) return original;
    let parsed: CdpMessage;
    try {
      parsed = JSON.parse(message.toString("utf8")) as CdpMessage;
    } catch {
      return original; // Chromium answers malformed JSON itself
    }
    const method = typeof parsed.method === "string" ? parsed.method : "";
    const redirected = redirectedDownloads(parsed, this.options.downloads);
    const context = downloadBehaviourContext(parsed);
    if (redirected) {
      this.options.onRedirected?.(method);
      if (context !== undefined) this.options.onDownloadBehaviour?.(context);
      return textFrame(JSON.stringify({ ...parsed, params: redirected }));
    }
    const reason = policyRefusal(parsed, this.options.downloads);
    if (!reason) {
      if (context !== undefined) this.options.onDownloadBehaviour?.(context);
      return original;
    }
    this.options.onRefused(method, reason);
    const standIn: Record<string, unknown> = { id: parsed.id, method: `Vessel.policy: ${method} refused: ${reason}`, params: {} };
    if (parsed.sessionId !== undefined) standIn.sessionId = parsed.sessionId;
    return textFrame(JSON.stringify(standIn));
  }
}

/** The same filter as a Transform stream, for piping. */
export class CdpClientFilter extends Transform {
  readonly #frames: CdpFrameFilter;

  constructor(options: FilterOptions) {
    super();
    this.#frames = new CdpFrameFilter(options, (bytes) => this.push(bytes));
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    try {
      this.#frames.feed(chunk);
      done();
    } catch (err) {
      done(err as Error);
    }
  }
}
