import { AppError } from "../errors.ts";
import type { Principal } from "./principal.ts";

/**
 * What an API key may do beyond sessions and profiles, granted when the key is made. A key without a
 * scope is refused what it guards (403), so every key made before scopes existed stays as it was.
 * People are judged by their role instead (owners and admins manage, every member uses).
 */
export const apiKeyScopes = ["credentials:use", "credentials:manage"] as const;
export type ApiKeyScope = (typeof apiKeyScopes)[number];

/** 403 when `principal` is an API key without `scope`; a person passes (their role is checked where it matters). */
export function requireScope(principal: Principal, scope: ApiKeyScope, what: string): void {
  if (principal.kind === "apiKey" && !principal.scopes.includes(scope)) {
    throw new AppError("forbidden", `This API key lacks the scope \`${scope}\` needed to ${what}.`);
  }
}
