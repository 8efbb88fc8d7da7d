import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";

// ---------------------------------------------------------------------------------------------
// The fixture site: an HTML page with a stylesheet, two scripts and three images, about 400 KB,
// generated deterministically (not compressible to nothing, served without compression).

/** Deterministic pseudo-random bytes (xorshift32), so every run serves the same site. */
export function noise(n: number, seed: number): Buffer {
  const out = Buffer.allocUnsafe(n);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    out[i] = x & 0xff;
  }
  return out;
}

export const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
export function crc32(buf: Buffer): number {
  let c = 0xffffffff;
  for (const b of buf) c = crcTable[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
export function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}
/** A valid RGB PNG of noise (so it stays about w×h×3 bytes), which the page decodes and draws. */
export function png(w: number, h: number, seed: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // RGB
  const pixels = noise(h * (w * 3 + 1), seed);
  for (let y = 0; y < h; y++) pixels[y * (w * 3 + 1)] = 0; // filter: none
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", zlib.deflateSync(pixels, { level: 1 })),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}
export const words = (n: number, seed: number) => {
  const b = noise(n, seed);
  let s = "";
  for (let i = 0; i < n; i++) s += i % 7 === 6 ? " " : String.fromCharCode(97 + (b[i]! % 26));
  return s;
};

export function buildSite(): Map<string, { type: string; body: Buffer }> {
  const css = Array.from(
    { length: 900 },
    (_, i) =>
      `.c${i} { margin: ${i % 13}px; padding: ${i % 7}px ${i % 5}px; color: #${((i * 2654435761) >>> 8).toString(16).padStart(6, "0").slice(0, 6)}; }\n`,
  ).join("");
  const js = (name: string, n: number, seed: number) =>
    `// ${name}\nconst ${name}Table = ${JSON.stringify(words(n, seed).split(" "))};\n` + `window.${name}Ready = ${name}Table.length;\n`;
  const paragraphs = Array.from({ length: 60 }, (_, i) => `<p class="c${i}">${words(400, 1000 + i)}</p>`).join("\n");
  const html =
    `<!doctype html><html><head><meta charset="utf-8"><title>bench site</title>` +
    `<link rel="stylesheet" href="/style.css"><script src="/vendor.js"></script></head><body>` +
    `<h1>bench site</h1><img src="/a.png" width="160" height="120"><img src="/b.png" width="160" height="120"><img src="/c.png" width="160" height="120">` +
    `${paragraphs}<script src="/app.js"></script></body></html>`;
  return new Map([
    ["/", { type: "text/html; charset=utf-8", body: Buffer.from(html) }],
    ["/style.css", { type: "text/css", body: Buffer.from(css) }],
    ["/vendor.js", { type: "text/javascript", body: Buffer.from(js("vendor", 90_000, 7)) }],
    ["/app.js", { type: "text/javascript", body: Buffer.from(js("app", 30_000, 11)) }],
    ["/a.png", { type: "image/png", body: png(160, 120, 21) }],
    ["/b.png", { type: "image/png", body: png(160, 120, 22) }],
    ["/c.png", { type: "image/png", body: png(160, 120, 23) }],
  ]);
}

/** A throw-away self-signed certificate for the HTTPS fixture, or why there is none. */
export function selfSigned(dir: string, host: string): { key: Buffer; cert: Buffer } | string {
  try {
    const san = /^[\d.]+$/.test(host) ? `IP:${host}` : `DNS:${host}`;
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-days",
        "1",
        "-subj",
        "/CN=vessel-bench",
        "-addext",
        `subjectAltName=${san}`,
        "-keyout",
        path.join(dir, "key.pem"),
        "-out",
        path.join(dir, "cert.pem"),
      ],
      { stdio: "ignore" },
    );
    return { key: fs.readFileSync(path.join(dir, "key.pem")), cert: fs.readFileSync(path.join(dir, "cert.pem")) };
  } catch (err) {
    return `no HTTPS fixture (openssl failed: ${err instanceof Error ? err.message : String(err)})`;
  }
}
