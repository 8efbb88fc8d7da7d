import net from "node:net";

/**
 * Seeded generation of malformed input, and raw HTTP and WebSocket over TCP to send it with. The
 * seed is fixed, so every run sends the same cases and a failure names the case that caused it.
 */

/** mulberry32: a tiny, good-enough PRNG with a 32-bit state. */
export class Rng {
  #state: number;

  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  /** A number in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  bytes(n: number): Buffer {
    const out = Buffer.alloc(n);
    for (let i = 0; i < n; i++) out[i] = this.int(256);
    return out;
  }
}

/** Pieces that break parsers: percent-encodings, brackets, control and multi-byte characters, JSON oddities. */
export const nasty: readonly string[] = [
  "%",
  "%z",
  "%zz",
  "%E0%A4%A",
  "%00",
  "%FF",
  "%C0%AF",
  "%2e%2e",
  "%2F",
  "\u0000",
  "\u0001",
  "\x7f",
  "\uD800",
  "\uDFFF",
  "[",
  "]",
  "[::1",
  "http://[::1",
  "//",
  "/..",
  "..",
  "\\",
  "{",
  "}",
  '"',
  "'",
  "`",
  "<",
  ">",
  " ",
  "\t",
  "é",
  "💥",
  "\u2028",
  ":",
  "@",
  "#",
  "?",
  "&",
  "=",
  ";",
  ",",
  "+",
  "*",
  "$",
  "1e999",
  "-0",
  "0x10",
  "NaN",
  "null",
  "[]",
  "{}",
  "true",
  "__proto__",
  "constructor",
  '{"__proto__":{"x":1}}',
  "a".repeat(300),
  "9".repeat(40),
  "=".repeat(3),
  ".",
  "..",
  "...",
];

/** A mutation of `s`: a piece replaced, removed, repeated, cut, or a nasty piece spliced in (one to three times). */
export function mutate(rng: Rng, s: string): string {
  let out = s;
  const rounds = 1 + rng.int(3);
  for (let r = 0; r < rounds; r++) {
    const at = rng.int(out.length + 1);
    const len = rng.int(Math.min(8, out.length - at) + 1);
    switch (rng.int(6)) {
      case 0:
        out = out.slice(0, at) + rng.pick(nasty) + out.slice(at);
        break;
      case 1:
        out = out.slice(0, at) + out.slice(at + len);
        break;
      case 2:
        out = out.slice(0, at) + rng.pick(nasty) + out.slice(at + len);
        break;
      case 3:
        out = out.slice(0, at);
        break;
      case 4:
        out = out.slice(0, at) + out.slice(at, at + len).repeat(2 + rng.int(3)) + out.slice(at);
        break;
      default: {
        // One character changed to a random one (any code unit, so lone surrogates and controls too).
        const c = String.fromCharCode(rng.chance(0.7) ? rng.int(128) : rng.int(0x10000));
        out = out.slice(0, at) + c + out.slice(at + 1);
      }
    }
  }
  return out;
}

/** Percent-encodes the UTF-8 bytes of `s` (lone surrogates become U+FFFD): unlike encodeURIComponent, it never throws. */
export function percentEncode(s: string): string {
  return [...Buffer.from(s, "utf8")]
    .map((b) => (/[A-Za-z0-9_.~-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, "0")}`))
    .join("");
}

export interface RawAnswer {
  /** The status of the first answer; undefined when the server closed without answering. */
  status?: number;
  head: string;
  body: Buffer;
  /** The whole of what came back. */
  bytes: Buffer;
}

/**
 * Writes `request` to a fresh connection, half-closes it (so an incomplete request ends instead of
 * waiting for the server's timeouts), and collects what comes back until the server closes.
 * Rejects if nothing closes within `ms`: a hang is a failure.
 */
export function rawExchange(port: number, request: Buffer | string, ms = 15_000): Promise<RawAnswer> {
  return rawConversation(port, [{ send: Buffer.isBuffer(request) ? request : Buffer.from(request, "utf8") }], ms);
}

/**
 * rawExchange in steps: each step's bytes are written once the answer so far contains its
 * `after` text (a WebSocket handshake's 101, a `connection_ack`); if the server closes first, the
 * rest is not sent. The connection is half-closed after the last step.
 */
export function rawConversation(port: number, steps: Array<{ send: Buffer; after?: string }>, ms = 15_000): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    let step = 0;
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`conversation stuck at step ${step} within ${ms} ms: ${Buffer.concat(chunks).toString("latin1").slice(0, 300)}`));
    }, ms);
    const advance = () => {
      const seen = Buffer.concat(chunks).toString("latin1");
      while (step < steps.length && (steps[step]!.after === undefined || seen.includes(steps[step]!.after!))) {
        socket.write(steps[step++]!.send);
        if (step === steps.length) socket.end();
      }
    };
    socket.on("connect", advance);
    socket.on("data", (d: Buffer) => {
      chunks.push(d);
      advance();
    });
    socket.on("error", () => {});
    socket.on("close", () => {
      clearTimeout(timer);
      const bytes = Buffer.concat(chunks);
      const split = bytes.indexOf("\r\n\r\n");
      const head = (split === -1 ? bytes : bytes.subarray(0, split)).toString("latin1");
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1];
      resolve({ status: status ? Number(status) : undefined, head, body: split === -1 ? Buffer.alloc(0) : bytes.subarray(split + 4), bytes });
    });
  });
}

/** The header `name` of an answer's head, lower-cased name match. */
export function headerOf(answer: RawAnswer, name: string): string | undefined {
  const line = answer.head.split("\r\n").find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return line?.slice(name.length + 1).trim();
}

/** A client WebSocket frame (RFC 6455 §5.2), masked unless told otherwise; `length` may lie about the payload. */
export function wsFrame(opts: { opcode: number; payload: Buffer; fin?: boolean; rsv?: number; mask?: boolean; length?: number }): Buffer {
  const { opcode, payload } = opts;
  const length = opts.length ?? payload.length;
  const masked = opts.mask ?? true;
  const head: number[] = [((opts.fin ?? true) ? 0x80 : 0) | ((opts.rsv ?? 0) << 4) | (opcode & 0x0f)];
  const m = masked ? 0x80 : 0;
  if (length < 126) head.push(m | length);
  else if (length < 65536) head.push(m | 126, length >> 8, length & 0xff);
  else {
    head.push(m | 127);
    const big = Buffer.alloc(8);
    big.writeBigUInt64BE(BigInt(length));
    head.push(...big);
  }
  if (!masked) return Buffer.concat([Buffer.from(head), payload]);
  const key = Buffer.from([0x12, 0x34, 0x56, 0x78]);
  const body = Buffer.from(payload);
  for (let i = 0; i < body.length; i++) body[i]! ^= key[i % 4]!;
  return Buffer.concat([Buffer.from(head), key, body]);
}

/** The status code of the first close frame the server sent after its 101 answer; undefined without one. */
export function closeCodeIn(afterHandshake: Buffer): number | undefined {
  let at = 0;
  while (at + 2 <= afterHandshake.length) {
    const opcode = afterHandshake[at]! & 0x0f;
    let len = afterHandshake[at + 1]! & 0x7f;
    let start = at + 2;
    if (len === 126) {
      if (start + 2 > afterHandshake.length) return undefined;
      len = afterHandshake.readUInt16BE(start);
      start += 2;
    } else if (len === 127) {
      if (start + 8 > afterHandshake.length) return undefined;
      len = Number(afterHandshake.readBigUInt64BE(start));
      start += 8;
    }
    if (opcode === 0x8) return len >= 2 && start + 2 <= afterHandshake.length ? afterHandshake.readUInt16BE(start) : 1005;
    at = start + len;
  }
  return undefined;
}

/**
 * One to four client frames around the given texts (each maybe mutated): well-formed text frames,
 * and frames a server must refuse: binary where text is expected, invalid UTF-8, fragments, reserved
 * opcodes and bits, unmasked frames, oversized control frames, bad close codes, and a length that
 * announces far more than any limit (with nothing behind it).
 */
export function mutatedFrames(rng: Rng, texts: readonly string[]): { bytes: Buffer; what: string } {
  const frames: Buffer[] = [];
  const what: string[] = [];
  for (let i = 0, n = 1 + rng.int(4); i < n; i++) {
    const text = rng.chance(0.6) ? mutate(rng, rng.pick(texts)) : rng.pick(texts);
    const utf8 = Buffer.from(text, "utf8");
    const kind = rng.int(8);
    what.push(`${["binary", "bad utf-8", "fragmented", "reserved", "control", "huge length", "text", "text"][kind]} ${JSON.stringify(text.slice(0, 80))}`);
    switch (kind) {
      case 0:
        frames.push(wsFrame({ opcode: 2, payload: rng.bytes(rng.int(64)) }));
        break;
      case 1:
        frames.push(wsFrame({ opcode: 1, payload: Buffer.concat([utf8.subarray(0, 5), Buffer.from([0xc3, 0x28, 0xff])]) }));
        break;
      case 2:
        frames.push(wsFrame({ opcode: 1, payload: utf8.subarray(0, 7), fin: false }), wsFrame({ opcode: 0, payload: utf8.subarray(7) }));
        break;
      case 3:
        frames.push(wsFrame({ opcode: rng.pick([3, 7, 0xb, 0xf, 1]), payload: utf8, rsv: rng.int(8), mask: rng.chance(0.5) }));
        break;
      case 4:
        frames.push(rng.chance(0.5) ? wsFrame({ opcode: 9, payload: Buffer.alloc(200) }) : wsFrame({ opcode: 8, payload: Buffer.from([0x03, 0xe7]) }));
        break;
      case 5:
        frames.push(wsFrame({ opcode: 1, payload: utf8, length: 2 ** 40 }));
        break;
      default:
        frames.push(wsFrame({ opcode: 1, payload: utf8 }));
    }
  }
  return { bytes: Buffer.concat(frames), what: what.join(" | ") };
}

export const websocketHeaders = "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n";
