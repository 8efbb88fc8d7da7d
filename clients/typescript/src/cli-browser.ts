import { readFile } from "node:fs/promises";
import path from "node:path";
import type { CreateSessionOptions, Vessel } from "./index.ts";

/** A usage mistake: coded like node's parseArgs errors, which cli.ts answers with the usage and exit code 2. */
class BrowserUsageError extends Error {
  readonly code = "ERR_PARSE_ARGS_INVALID_OPTION_VALUE";
}

/** `vessel sessions create` flags for the session's browser (docs/session-options.md). */
export const browserFlags = {
  viewport: { type: "string" },
  "user-agent": { type: "string" },
  locale: { type: "string" },
  timezone: { type: "string" },
  geolocation: { type: "string" },
  extension: { type: "string", multiple: true },
} as const;

export const browserUsage = "[--viewport <w>x<h>] [--user-agent <ua>] [--locale <bcp47>] [--timezone <iana>] [--geolocation <lat>,<lon>] [--extension <id>]…";

/** The flags as create options; the server judges the values (bounds, zones, locales). */
export function browserOptionsOf(values: Record<string, unknown>): Pick<CreateSessionOptions, "browser" | "extensionIds"> {
  const browser: NonNullable<CreateSessionOptions["browser"]> = {};
  if (typeof values.viewport === "string") {
    const m = /^(\d+)x(\d+)$/.exec(values.viewport);
    if (!m) throw new BrowserUsageError("--viewport takes <width>x<height>, for example 1280x800");
    browser.viewport = { width: Number(m[1]), height: Number(m[2]) };
  }
  if (typeof values["user-agent"] === "string") browser.user_agent = values["user-agent"];
  if (typeof values.locale === "string") browser.locale = values.locale;
  if (typeof values.timezone === "string") browser.timezone = values.timezone;
  if (typeof values.geolocation === "string") {
    const [latitude, longitude] = values.geolocation.split(",").map(Number);
    if (!Number.isFinite(latitude) || !Number.isFinite(longitude))
      throw new BrowserUsageError("--geolocation takes <latitude>,<longitude>, for example 46.95,7.45");
    browser.geolocation = { latitude: latitude!, longitude: longitude! };
  }
  const extensions = Array.isArray(values.extension) ? (values.extension as string[]) : [];
  return { ...(Object.keys(browser).length > 0 ? { browser } : {}), ...(extensions.length > 0 ? { extensionIds: extensions } : {}) };
}

type Run = { vessel: Vessel; args: string[]; io: { out(text: string): void }; json: boolean };

/** `vessel extensions …`: the workspace's browser extensions. */
export const extensionCommands = {
  "extensions list": {
    usage: "vessel extensions list",
    summary: "List the workspace's browser extensions.",
    async run({ vessel, io, json }: Run) {
      const items = await vessel.extensions.list();
      io.out(
        json
          ? JSON.stringify(items, null, 2)
          : items.length === 0
            ? "No extensions."
            : items.map((e) => `${e.id}  ${e.name} ${e.version}  ${e.size_bytes} B  ${e.created_at}`).join("\n"),
      );
    },
  },
  "extensions upload": {
    usage: "vessel extensions upload <file.zip>",
    summary: "Upload a zip of an unpacked Manifest V3 extension; sessions load it with --extension <id> (full Chromium only).",
    args: ["file"],
    async run({ vessel, args, io, json }: Run) {
      const uploaded = await vessel.extensions.upload(await readFile(path.resolve(args[0]!)));
      io.out(json ? JSON.stringify(uploaded, null, 2) : `${uploaded.id}  ${uploaded.name} ${uploaded.version}`);
    },
  },
  "extensions delete": {
    usage: "vessel extensions delete <id>",
    summary: "Delete an extension (its key is destroyed with it).",
    args: ["id"],
    async run({ vessel, args, io, json }: Run) {
      await vessel.extensions.delete(args[0]!);
      io.out(json ? JSON.stringify({ deleted: args[0] }) : `Deleted ${args[0]}.`);
    },
  },
};
