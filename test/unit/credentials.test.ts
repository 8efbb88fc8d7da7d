import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { credentialCommands } from "../../clients/typescript/src/cli-credentials.ts";
import type { Vessel } from "../../clients/typescript/src/index.ts";
import { withoutPostData } from "../../src/browser/cdp/relay/withheld-post-data.ts";
import { masterKeyId } from "../../src/crypto/master-key.ts";
import { CreateCredentialInput } from "../../src/services/credentials/credential-input.ts";
import { openSecrets, sealSecrets, totpCode, usernameHint } from "../../src/services/credentials/credential-secrets.ts";

const key = () => {
  const k = randomBytes(32);
  return { key: k, id: masterKeyId(k) };
};

describe("credentials: the parts without a browser", () => {
  it("computes RFC 6238 codes (the RFC's SHA-1 test vectors, 6 digits)", () => {
    // RFC 6238 appendix B: the ASCII secret "12345678901234567890", in base32.
    const secret = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ";
    expect(totpCode(secret, new Date(59_000))).toBe("287082");
    expect(totpCode(secret, new Date(1_111_111_109_000))).toBe("081804");
    expect(totpCode(secret, new Date(2_000_000_000_000))).toBe("279037");
  });

  it("seals secrets to their row: another master key, credential or workspace cannot open them", () => {
    const master = key();
    const secrets = { username: "u", password: "p4ss", totp_secret: null };
    const row = { id: "cred_1", workspaceId: "ws_1", ...sealSecrets(master, "ws_1", "cred_1", secrets) };
    expect(openSecrets(master, row)).toEqual(secrets);
    expect(Buffer.from(row.sealed).toString("latin1")).not.toContain("p4ss");
    expect(() => openSecrets(key(), row)).toThrow(/could not be decrypted/);
    expect(() => openSecrets(master, { ...row, id: "cred_2" })).toThrow(/could not be decrypted/);
    expect(() => openSecrets(master, { ...row, workspaceId: "ws_2" })).toThrow(/could not be decrypted/);
  });

  it("hints at a username without holding it", () => {
    expect(usernameHint("alice.smith@example.com")).toBe("al•••@example.com");
    expect(usernameHint("bob")).toBe("b•••");
  });

  it("refuses bad input without echoing it", () => {
    const r = CreateCredentialInput.safeParse({
      name: "x",
      origins: ["https://a.example/login"],
      username: "u",
      password: "secret-pw",
      totp_secret: "secret!!",
    });
    expect(r.success).toBe(false);
    const text = JSON.stringify(r.error?.issues);
    expect(text).not.toContain("secret-pw");
    expect(text).not.toContain("secret!!");
    expect(r.error?.issues.map((i) => i.path.join("."))).toEqual(["origins.0", "totp_secret"]);
  });

  it("withholds request bodies in the browser's messages, and leaves the rest as it came", () => {
    const event = Buffer.from(
      JSON.stringify({
        method: "Network.requestWillBeSent",
        params: { request: { url: "http://a/", postData: "password=x", hasPostData: true, postDataEntries: [{ bytes: "cGFzc3dvcmQ9eA==" }] } },
      }),
    );
    const out = JSON.parse(withoutPostData(event).toString()) as { params: { request: Record<string, unknown> } };
    expect(out.params.request).toEqual({ url: "http://a/", hasPostData: true });
    const answer = Buffer.from(JSON.stringify({ id: 7, result: { postData: "password=x" } }));
    expect(JSON.parse(withoutPostData(answer).toString())).toEqual({ id: 7, result: {} });
    const other = Buffer.from('{"method":"Page.loadEventFired","params":{"timestamp":1}}');
    expect(withoutPostData(other)).toBe(other);
  });

  it("the CLI reads the password and TOTP secret from its reader (a prompt or stdin), never from argv", async () => {
    const prompts: string[] = [];
    const commands = credentialCommands(async (prompt) => {
      prompts.push(prompt);
      return prompt.startsWith("Password") ? "pw-from-stdin" : "JBSWY3DPEHPK3PXP";
    });
    let sent: unknown;
    const vessel = {
      credentials: {
        create: async (body: unknown) => {
          sent = body;
          return { id: "cred_1", name: "crm", origins: ["https://a.example"] };
        },
      },
    } as unknown as Vessel;
    const out: string[] = [];
    const values = { name: "crm", origin: ["https://a.example"], username: "agent", totp: true };
    await commands["credentials add"]!.run({ vessel, values, args: [], io: { out: (t) => out.push(t), err() {}, interactive: false, env: {} }, json: false });
    expect(prompts).toEqual(["Password: ", "TOTP secret (base32): "]);
    expect(sent).toEqual({ name: "crm", origins: ["https://a.example"], username: "agent", password: "pw-from-stdin", totp_secret: "JBSWY3DPEHPK3PXP" });
    expect(commands["credentials add"]!.options).not.toHaveProperty("password");
    expect(out.join("")).not.toContain("pw-from-stdin");
  });
});
