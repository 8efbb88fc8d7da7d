import { unzipSync } from "fflate";
import { AppError } from "../../kernel/errors.ts";

/** Limits of an uploaded extension: the zip, what it unpacks to, and how many files. */
export const EXTENSION_ZIP_MAX_BYTES = 16 * 1024 * 1024;
const UNPACKED_MAX_BYTES = 64 * 1024 * 1024;
const MAX_FILES = 2_000;
const NAME_MAX = 255;

export interface CheckedExtension {
  name: string;
  version: string;
  /** Relative paths (from the folder holding manifest.json) to bytes. */
  files: Map<string, Uint8Array>;
}

const invalid = (why: string) => new AppError("invalid-extension", `Not an extension this deployment can load: ${why}.`);

/** A file name inside the zip that stays inside its folder on every file system. */
function safeEntryName(name: string): boolean {
  if (name.length === 0 || name.length > 1024 || name.startsWith("/") || name.includes("\\")) return false;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) return false;
  return name.split("/").every((part, i, all) => (part === "" ? i === all.length - 1 : part !== "." && part !== ".." && part.length <= NAME_MAX));
}

/**
 * Reads and checks an uploaded zip of an unpacked Manifest V3 extension: sizes are judged from the
 * zip's own directory before anything is inflated (a zip bomb is refused unread), every name is a
 * plain relative path, and manifest.json says manifest_version 3, a name and a version. The
 * extension's folder is the zip's top, or the one folder everything is in.
 */
export function checkExtensionZip(zip: Uint8Array): CheckedExtension {
  if (zip.length === 0 || zip.length > EXTENSION_ZIP_MAX_BYTES) throw invalid(`the zip must hold 1 to ${EXTENSION_ZIP_MAX_BYTES} bytes`);
  let declared = 0;
  let count = 0;
  let entries: Record<string, Uint8Array>;
  try {
    entries = unzipSync(zip, {
      filter: (file) => {
        count += 1;
        declared += file.originalSize;
        if (count > MAX_FILES) throw invalid(`more than ${MAX_FILES} files`);
        if (declared > UNPACKED_MAX_BYTES) throw invalid(`it unpacks to more than ${UNPACKED_MAX_BYTES} bytes`);
        if (!safeEntryName(file.name)) throw invalid(`the file name ${JSON.stringify(file.name.slice(0, 80))} is not a plain relative path`);
        return !file.name.endsWith("/");
      },
    });
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw invalid("the upload is not a readable zip");
  }
  const names = Object.keys(entries);
  const top = names.includes("manifest.json") ? "" : commonFolder(names);
  const manifestBytes = entries[`${top}manifest.json`];
  if (!manifestBytes) throw invalid("there is no manifest.json at its top");
  const manifest = parseManifest(manifestBytes);
  const files = new Map<string, Uint8Array>();
  let total = 0;
  for (const [name, bytes] of Object.entries(entries)) {
    total += bytes.length; // what was inflated, whatever the directory declared
    if (total > UNPACKED_MAX_BYTES) throw invalid(`it unpacks to more than ${UNPACKED_MAX_BYTES} bytes`);
    if (name.startsWith(top)) files.set(name.slice(top.length), bytes);
  }
  return { ...manifest, files };
}

/** `folder/` when every name is inside that one folder, else "". */
function commonFolder(names: string[]): string {
  const first = names[0]?.split("/")[0];
  return first && names.every((n) => n.startsWith(`${first}/`)) ? `${first}/` : "";
}

function parseManifest(bytes: Uint8Array): { name: string; version: string } {
  let manifest: { manifest_version?: unknown; name?: unknown; version?: unknown };
  try {
    manifest = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes).replace(/^\uFEFF/, "")) as typeof manifest;
  } catch {
    throw invalid("manifest.json is not JSON");
  }
  if (manifest?.manifest_version !== 3) throw invalid("manifest_version must be 3");
  if (typeof manifest.name !== "string" || manifest.name.trim() === "" || manifest.name.length > 200) throw invalid("manifest.json needs a name");
  if (typeof manifest.version !== "string" || !/^\d{1,9}(\.\d{1,9}){0,3}$/.test(manifest.version)) throw invalid("manifest.json needs a version of one to four numbers (1.2.3)");
  return { name: manifest.name.trim(), version: manifest.version };
}
