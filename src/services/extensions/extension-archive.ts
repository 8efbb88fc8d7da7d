import { crc32, inflateRawSync } from "node:zlib";

/**
 * Reads an uploaded zip without trusting it (run on the extension thread, extension-zip-thread.ts).
 * Everything is judged from the zip's central directory before a byte is inflated: the number of
 * entries, each entry's declared size and the sum of them, every name (a plain relative path), and
 * each entry's type (a symlink, device or pipe is refused, whatever it points at). Then each entry
 * is inflated with zlib's own output cap set to its declared size, so an entry that lies about its
 * size stops at it; its CRC-32 must match. Our own reader and not fflate's unzip: fflate does not
 * expose an entry's Unix mode (symlinks); docs/decisions/0131-extension-archives-off-the-loop.md.
 */

export const ARCHIVE_LIMITS = {
  /** Entries in the zip, folders included. */
  entries: 2_000,
  /** What one file may inflate to. */
  entryBytes: 32 * 1024 * 1024,
  /** What all of them together may inflate to. */
  totalBytes: 64 * 1024 * 1024,
};
const NAME_MAX = 255;

export class ArchiveRefused extends Error {}

export interface ArchiveEntry {
  /** A plain relative path, `/`-separated; a folder's ends with `/`. */
  name: string;
  folder: boolean;
  declaredBytes: number;
  /** Inflates (or copies) this entry, checked against its size and CRC-32. */
  read(): Buffer;
}

const refuse = (why: string): never => {
  throw new ArchiveRefused(why);
};

/** A file name inside the zip that stays inside its folder on every file system. */
export function plainRelativeName(name: string): boolean {
  if (name.length === 0 || name.length > 1024 || name.startsWith("/") || name.includes("\\")) return false;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) return false;
  return name.split("/").every((part, i, all) => (part === "" ? i === all.length - 1 : part !== "." && part !== ".." && part.length <= NAME_MAX));
}

const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;

/** The entries of `zip`, each checked as above; throws ArchiveRefused saying why. */
export function readArchive(zip: Buffer, limits = ARCHIVE_LIMITS): ArchiveEntry[] {
  const eocd = findEndOfDirectory(zip);
  const count = zip.readUInt16LE(eocd + 10);
  const dirSize = zip.readUInt32LE(eocd + 12);
  const dirStart = zip.readUInt32LE(eocd + 16);
  if (zip.readUInt16LE(eocd + 4) !== 0 || zip.readUInt16LE(eocd + 6) !== 0 || zip.readUInt16LE(eocd + 8) !== count) refuse("the zip spans several disks");
  if (count === 0xffff || dirStart === 0xffffffff || dirSize === 0xffffffff) refuse("the zip is a ZIP64 archive, which an extension never needs");
  if (count > limits.entries) refuse(`it holds more than ${limits.entries} entries`);
  if (dirStart + dirSize > eocd) refuse("its central directory is out of bounds");
  const entries: ArchiveEntry[] = [];
  const seen = new Set<string>();
  let declaredTotal = 0;
  let at = dirStart;
  for (let i = 0; i < count; i++) {
    if (at + 46 > eocd || zip.readUInt32LE(at) !== 0x02014b50) refuse("its central directory is damaged");
    const madeBy = zip.readUInt16LE(at + 4);
    const flags = zip.readUInt16LE(at + 8);
    const method = zip.readUInt16LE(at + 10);
    const crc = zip.readUInt32LE(at + 16);
    const packed = zip.readUInt32LE(at + 20);
    const declared = zip.readUInt32LE(at + 24);
    const nameLength = zip.readUInt16LE(at + 28);
    const next = at + 46 + nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
    const external = zip.readUInt32LE(at + 38);
    const local = zip.readUInt32LE(at + 42);
    if (next > eocd) refuse("its central directory is damaged");
    const name = decodeName(zip.subarray(at + 46, at + 46 + nameLength));
    at = next;
    if (name === undefined || !plainRelativeName(name)) refuse(`the entry name ${JSON.stringify((name ?? "?").slice(0, 80))} is not a plain relative path`);
    const entryName = name!;
    if (seen.has(entryName)) refuse(`the entry ${JSON.stringify(entryName.slice(0, 80))} appears twice`);
    seen.add(entryName);
    if (flags & 0x1) refuse("it is encrypted");
    const folder = entryName.endsWith("/");
    // Unix hosts (3) keep the mode in the high half: only plain files and folders are taken.
    const type = madeBy >> 8 === 3 ? (external >>> 16) & S_IFMT : 0;
    if (type !== 0 && type !== (folder ? S_IFDIR : S_IFREG)) refuse(`the entry ${JSON.stringify(entryName.slice(0, 80))} is a symlink or another special file`);
    if (method !== 0 && method !== 8) refuse(`the entry ${JSON.stringify(entryName.slice(0, 80))} uses a compression method other than deflate`);
    if (declared > limits.entryBytes) refuse(`the entry ${JSON.stringify(entryName.slice(0, 80))} unpacks to more than ${limits.entryBytes} bytes`);
    declaredTotal += declared;
    if (declaredTotal > limits.totalBytes) refuse(`it unpacks to more than ${limits.totalBytes} bytes`);
    if (folder && declared !== 0) refuse(`the folder entry ${JSON.stringify(entryName.slice(0, 80))} has content`);
    entries.push({
      name: entryName,
      folder,
      declaredBytes: declared,
      read: () => readEntry(zip, { name: entryName, local, method, packed, declared, crc, end: dirStart }),
    });
  }
  return entries;
}

function findEndOfDirectory(zip: Buffer): number {
  // The record is 22 bytes plus a comment of at most 65,535: look no further back than that.
  for (let at = zip.length - 22; at >= Math.max(0, zip.length - 22 - 0xffff); at--) {
    if (zip.readUInt32LE(at) === 0x06054b50 && at + 22 + zip.readUInt16LE(at + 20) === zip.length) return at;
  }
  return refuse("the upload is not a readable zip");
}

function decodeName(bytes: Buffer): string | undefined {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

function readEntry(zip: Buffer, e: { name: string; local: number; method: number; packed: number; declared: number; crc: number; end: number }): Buffer {
  const what = JSON.stringify(e.name.slice(0, 80));
  if (e.local + 30 > e.end || zip.readUInt32LE(e.local) !== 0x04034b50) refuse(`the entry ${what} is damaged`);
  const start = e.local + 30 + zip.readUInt16LE(e.local + 26) + zip.readUInt16LE(e.local + 28);
  if (start + e.packed > e.end) refuse(`the entry ${what} is out of bounds`);
  const packed = zip.subarray(start, start + e.packed);
  let bytes: Buffer;
  if (e.method === 0) bytes = packed;
  else {
    try {
      // maxOutputLength stops a lying entry at its declared size (at least 1: zlib refuses 0).
      bytes = inflateRawSync(packed, { maxOutputLength: Math.max(1, e.declared) });
    } catch {
      return refuse(`the entry ${what} does not inflate to its declared size`);
    }
  }
  if (bytes.length !== e.declared) refuse(`the entry ${what} does not inflate to its declared size`);
  if (crc32(bytes) !== e.crc) refuse(`the entry ${what} fails its checksum`);
  return bytes;
}
