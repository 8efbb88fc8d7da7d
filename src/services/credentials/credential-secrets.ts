import { Secret, TOTP } from "otpauth";
import { newDataKey, openRecord, sealRecord, unwrapDataKey } from "../../crypto/data-keys.ts";
import type { MasterKey } from "../../crypto/master-key.ts";
import { AppError } from "../../errors.ts";

/**
 * A credential's secrets at rest: the JSON {username, password, totp_secret} sealed under a data key
 * of its own, which is stored only wrapped by the master key (crypto/data-keys.ts); both are bound to
 * the credential (and the sealed JSON to its workspace), so bytes copied to another row do not open.
 */
export interface CredentialSecrets {
  username: string;
  password: string;
  totp_secret: string | null;
}

/** The AAD of a credential's wrapped data key (master-key rotation re-wraps with it). */
export const credentialKeyAad = (id: string) => `credentials:${id}:data-key`;
const secretsAad = (workspaceId: string, id: string) => `credentials:${workspaceId}:${id}:secrets`;

export function sealSecrets(masterKey: MasterKey, workspaceId: string, id: string, secrets: CredentialSecrets) {
  const { dataKey, wrappedKey, masterKeyId } = newDataKey(masterKey, credentialKeyAad(id));
  const plain = Buffer.from(JSON.stringify(secrets), "utf8");
  try {
    return { sealed: sealRecord(dataKey, plain, secretsAad(workspaceId, id)), wrappedKey, masterKeyId };
  } finally {
    dataKey.fill(0);
    plain.fill(0);
  }
}

/** The secrets; 422 `credential-unreadable` when any stored byte, the binding or the master key is wrong. */
export function openSecrets(
  masterKey: MasterKey,
  row: { id: string; workspaceId: string; sealed: Uint8Array; wrappedKey: Uint8Array; masterKeyId: string },
): CredentialSecrets {
  const unreadable = () => new AppError("credential-unreadable", "The credential's secrets could not be decrypted.");
  if (row.masterKeyId !== masterKey.id) throw unreadable();
  let dataKey: Buffer | undefined;
  let plain: Buffer | undefined;
  try {
    dataKey = unwrapDataKey(masterKey, credentialKeyAad(row.id), row.wrappedKey);
    plain = openRecord(dataKey, row.sealed, secretsAad(row.workspaceId, row.id));
    const parsed = JSON.parse(plain.toString("utf8")) as CredentialSecrets;
    return { username: parsed.username, password: parsed.password, totp_secret: parsed.totp_secret ?? null };
  } catch {
    throw unreadable();
  } finally {
    dataKey?.fill(0);
    plain?.fill(0);
  }
}

/**
 * The username as people may see it: its first character (two for a longer one), then dots, and an
 * email's domain, so a person tells logins apart without the list holding them: `al•••@example.com`.
 */
export function usernameHint(username: string): string {
  const at = username.lastIndexOf("@");
  const local = at > 0 ? username.slice(0, at) : username;
  const domain = at > 0 ? username.slice(at) : "";
  const chars = Array.from(local);
  const shown = chars.slice(0, chars.length > 6 ? 2 : 1).join("");
  return `${shown}•••${domain}`.slice(0, 200);
}

/** The current RFC 6238 code (6 digits, 30-second steps, HMAC-SHA-1: what sites' authenticator setups mean). */
export function totpCode(base32: string, at: Date): string {
  return new TOTP({ secret: Secret.fromBase32(base32), digits: 6, period: 30, algorithm: "SHA1" }).generate({ timestamp: at.getTime() });
}
