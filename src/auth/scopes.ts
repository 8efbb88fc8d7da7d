/**
 * What an API key may do beyond sessions and profiles, granted when the key is made (api_keys.scopes).
 * A key without a scope is refused what it guards (403), so every key made before scopes existed
 * stays as it was. People are judged by their role instead. The check reads the key's row where a
 * scope is needed (services/credentials/credential-access.ts), so authentication and the principal
 * every other call carries are unchanged.
 */
export const apiKeyScopes = ["credentials:use", "credentials:manage"] as const;
export type ApiKeyScope = (typeof apiKeyScopes)[number];
