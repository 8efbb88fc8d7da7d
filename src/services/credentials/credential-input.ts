import { z } from "zod";
import { PageQuery } from "../../kernel/pagination.ts";

/**
 * The inputs of the credential operations. Every message here names what is wrong and never the
 * value: a refused password must not come back in the problem document.
 */

/** `cred_<ULID>`: a name of that shape would be mistaken for an id where either is accepted (the MCP tool). */
export const CREDENTIAL_ID = /^cred_[0-7][0-9A-HJKMNP-TV-Z]{25}$/;

export const CredentialName = z
  .string({ error: "must be a string" })
  .trim()
  .min(1, "cannot be empty")
  .max(100, "must be at most 100 characters")
  .refine((v) => !CREDENTIAL_ID.test(v), "cannot have the shape of a credential id")
  .describe("A name for people and agents, unique in the workspace (1–100 characters); `fill_credential` accepts it.");

/** `https://login.example.com` (a trailing `/` is accepted): a scheme, a host and maybe a port; nothing else. */
function originOf(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return undefined;
  if (url.username || url.password || url.search || url.hash || url.pathname !== "/") return undefined;
  return url.origin;
}

const Origin = z
  .string({ error: "must be a string" })
  .max(300, "must be at most 300 characters")
  .transform((v, ctx) => {
    const origin = originOf(v);
    if (!origin) {
      ctx.addIssue({ code: "custom", message: "must be an origin: http(s)://host[:port], without a path, query or fragment" });
      return z.NEVER;
    }
    return origin;
  });

export const CredentialOrigins = z
  .array(Origin, { error: "must be a list of origins" })
  .min(1, "name at least one origin")
  .max(20, "at most 20 origins")
  .transform((list) => [...new Set(list)])
  .describe("The top-level origins the credential may be filled into, e.g. `https://login.example.com`.");

const Secret = (what: string) =>
  z
    .string({ error: "must be a string" })
    .min(1, "cannot be empty")
    .max(1000, "must be at most 1000 characters")
    .describe(`${what}. Write-only: never returned.`);

const BASE32 = /^[A-Z2-7]+=*$/;
export const TotpSecret = z
  .string({ error: "must be a string" })
  .max(200, "must be at most 200 characters")
  .transform((v, ctx) => {
    const cleaned = v.replace(/[\s-]/g, "").toUpperCase();
    if (cleaned.replace(/=+$/, "").length < 16 || !BASE32.test(cleaned)) {
      ctx.addIssue({ code: "custom", message: "must be a base32 TOTP secret of at least 16 characters (as sites show it)" });
      return z.NEVER;
    }
    return cleaned.replace(/=+$/, "");
  })
  .describe("The base32 secret of the site's authenticator setup (RFC 6238: 6 digits, 30 s, SHA-1). Write-only: never returned.");

export const CreateCredentialInput = z.strictObject({
  name: CredentialName,
  origins: CredentialOrigins,
  username: Secret("The username"),
  password: Secret("The password"),
  totp_secret: TotpSecret.optional(),
});
export type CreateCredentialInput = z.output<typeof CreateCredentialInput>;

export const UpdateCredentialInput = z
  .strictObject({
    name: CredentialName.optional(),
    origins: CredentialOrigins.optional(),
    username: Secret("A new username").optional(),
    password: Secret("A new password").optional(),
    totp_secret: TotpSecret.nullable().optional().describe("A new TOTP secret; null removes it. Write-only: never returned."),
  })
  .refine((v) => Object.values(v).some((x) => x !== undefined), { message: "change at least one field", path: ["name"] });
export type UpdateCredentialInput = z.output<typeof UpdateCredentialInput>;

const Selector = (field: string) =>
  z
    .string({ error: "must be a string" })
    .min(1, "cannot be empty")
    .max(500, "must be at most 500 characters")
    .optional()
    .describe(`A CSS selector of the ${field} field in the page's top document (default: found by its autocomplete token).`);

export const FillCredentialInput = z.strictObject({
  username_selector: Selector("username"),
  password_selector: Selector("password"),
  totp_selector: Selector("one-time code"),
  submit: z.boolean({ error: "must be a boolean" }).default(false).describe("Submit the form once filled (default false)."),
});
export type FillCredentialInput = z.output<typeof FillCredentialInput>;

export const CredentialListQuery = PageQuery;
