import type { ServiceContext } from "../../kernel/context.ts";
import { AppError } from "../../errors.ts";
import type { PrepareResult } from "./extension-zip-thread.ts";

/** The largest extension zip taken (what it may unpack to: ARCHIVE_LIMITS in extension-archive.ts). */
export const EXTENSION_ZIP_MAX_BYTES = 16 * 1024 * 1024;

/** The problem document for a zip the extension thread did not prepare. */
export function problemOf(result: Exclude<PrepareResult, { kind: "prepared" }>): AppError {
  if (result.kind === "invalid") return new AppError("invalid-extension", `Not an extension this deployment can load: ${result.why}.`);
  return new AppError(
    "extension-permission-refused",
    `The extension asks for ${JSON.stringify(result.permission.slice(0, 200))}, which this deployment refuses: ${result.why}.`,
    { permission: result.permission.slice(0, 200) },
  );
}

/**
 * Extensions only where browsers are jailed: an extension has APIs no CDP client has, so on an
 * unjailed node the CDP policy would be all that stands between it and the node's files and loopback.
 * Refused at upload too (a single node would store what it can never load; a cluster's nodes share
 * one configuration).
 */
export function requireJail(ctx: ServiceContext): void {
  const isolation = ctx.deps.browsers.isolation;
  if (isolation.level === "jail") return;
  throw new AppError(
    "extensions-need-jail",
    `This node's browsers run without the jail (${isolation.reason ?? "VESSEL_BROWSER_JAIL"}), so it neither stores nor loads extensions. Run browsers jailed.`,
  );
}
