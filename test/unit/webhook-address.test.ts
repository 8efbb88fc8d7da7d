import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.ts";
import { AppError } from "../../src/errors.ts";
import { checkWebhookAddress, webhookPolicy } from "../../src/services/webhooks/webhook-address.ts";

/** What creating a webhook says about a URL under the deployment's settings (issue 45, point 3). */
async function verdict(env: Record<string, string>, url: string, addresses?: string[] | Error): Promise<string> {
  const policy = webhookPolicy(loadConfig(env, "/nonexistent"));
  const resolve = async () => {
    if (addresses instanceof Error) throw addresses;
    return addresses ?? [];
  };
  try {
    await checkWebhookAddress(policy, url, resolve);
    return "accepted";
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    expect(err.status).toBe(422);
    expect(err.extensions).toMatchObject({ setting: "VESSEL_WEBHOOK_ALLOW" });
    expect(err.detail).toContain("VESSEL_WEBHOOK_ALLOW");
    return err.slug;
  }
}

describe("webhook addresses at creation", () => {
  it("refuses loopback, private and metadata literals by default, naming the setting", async () => {
    for (const url of ["http://127.0.0.1:9000/hook", "http://10.1.2.3/hook", "http://169.254.169.254/latest", "http://[::1]:9/h", "http://[fd00::1]/h"])
      expect(await verdict({}, url), url).toBe("webhook-address-refused");
    expect(await verdict({}, "https://93.184.215.14/hook")).toBe("accepted");
  });

  it("is opened by VESSEL_WEBHOOK_ALLOW, not by the browsers' VESSEL_EGRESS_ALLOW", async () => {
    expect(await verdict({ VESSEL_EGRESS_ALLOW: "127.0.0.1/32,localhost" }, "http://127.0.0.1:9000/hook")).toBe("webhook-address-refused");
    expect(await verdict({ VESSEL_EGRESS_ALLOW: "127.0.0.1/32,localhost" }, "http://localhost:9000/hook", ["127.0.0.1"])).toBe("webhook-address-refused");
    expect(await verdict({ VESSEL_WEBHOOK_ALLOW: "127.0.0.1" }, "http://127.0.0.1:9000/hook")).toBe("accepted");
    expect(await verdict({ VESSEL_WEBHOOK_ALLOW: "localhost" }, "http://localhost:9000/hook", ["127.0.0.1"])).toBe("accepted");
    expect(await verdict({ VESSEL_WEBHOOK_ALLOW: "127.0.0.1" }, "http://10.0.0.1/hook")).toBe("webhook-address-refused");
  });

  it("judges a name by what it resolves to: refused only when no address is allowed", async () => {
    expect(await verdict({}, "https://hooks.example/in", ["10.0.0.7"])).toBe("webhook-address-refused");
    expect(await verdict({}, "https://hooks.example/in", ["10.0.0.7", "93.184.215.14"])).toBe("accepted");
    // Not resolvable (yet): not the policy's refusal; deliveries judge it each time.
    expect(await verdict({}, "https://hooks.example/in", [])).toBe("accepted");
    expect(await verdict({}, "https://hooks.example/in", new Error("ENOTFOUND"))).toBe("accepted");
  });
});
