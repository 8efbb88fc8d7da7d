// What an Idempotency-Key of a create is bound to: the request, its secrets replaced by keyed digests.
// Shared by the create that starts at once and the one that waits in the queue, so a replay of
// either matches the same body.
import { createHmac } from "node:crypto";
import type { ServiceContext } from "../../kernel/context.ts";
import { fingerprint } from "../../kernel/idempotency.ts";
import type { CreateSessionInput } from "./session-input.ts";

/** The create's fingerprint, as its idempotency record stores it. */
export function createFingerprint(ctx: ServiceContext, input: CreateSessionInput): string {
  return fingerprint("createSession", withoutSecrets(ctx, input));
}

/**
 * The request as the idempotency record fingerprints it: a proxy password is replaced by a keyed
 * digest, so the stored fingerprint cannot be used to guess it.
 */
function withoutSecrets(ctx: ServiceContext, input: CreateSessionInput): CreateSessionInput {
  if (!input.proxy?.password) return input;
  const digest = createHmac("sha256", ctx.deps.masterKey.key).update(input.proxy.password).digest("hex");
  return { ...input, proxy: { ...input.proxy, password: digest } };
}
