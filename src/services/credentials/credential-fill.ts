import { fillLogin, type LoginField } from "../../browser/forms/login-fill.ts";
import { withholdPostData } from "../../browser/cdp/relay/withheld-post-data.ts";
import { AppError } from "../../errors.ts";
import type { ServiceContext } from "../../kernel/context.ts";
import { parseInput, prismaOf } from "../../kernel/support.ts";
import type { z } from "zod";
import { credentialWorkspace, notFound } from "./credential-access.ts";
import { CREDENTIAL_ID, FillCredentialInput } from "./credential-input.ts";
import { openSecrets, totpCode } from "./credential-secrets.ts";

export interface FillOutcome {
  filled: LoginField[];
  origin: string;
}

/** How a fill shows in the session's CDP log: one entry, the method alone (never what was typed). */
export const FILL_LOG_METHOD = "Vessel.fillCredential";

/**
 * Fills a credential into a running session's active tab, on the server (browser/forms/login-fill.ts):
 * the secrets are opened here, typed by the server's own connection to the browser, and never put in
 * an answer, a log line or the audit entry (`credential.fill`, on the credential's id). `credential`
 * is an id (`cred_…`) or, for agents that know logins by name, the credential's name.
 */
export async function fillCredential(
  ctx: ServiceContext,
  sessionId: string,
  credential: string,
  raw: z.input<typeof FillCredentialInput>,
): Promise<FillOutcome> {
  // Parsed here as well as by the transport: GraphQL and MCP hand their arguments over as they came.
  const input = parseInput(FillCredentialInput, raw);
  const workspaceId = await credentialWorkspace(ctx, "use");
  const where = CREDENTIAL_ID.test(credential) ? { id: credential, workspaceId } : { name: credential, workspaceId };
  const [session, row] = await Promise.all([
    prismaOf(ctx).session.findFirst({ where: { id: sessionId, workspaceId }, select: { status: true } }),
    prismaOf(ctx).credential.findFirst({
      where,
      select: { id: true, workspaceId: true, origins: true, sealed: true, wrappedKey: true, masterKeyId: true },
    }),
  ]);
  if (ctx.audit && row) ctx.audit.target = row.id;
  if (!row) throw notFound();
  if (!session) throw new AppError("not-found", "No session with this id in this workspace.");
  if (session.status !== "RUNNING") throw new AppError("conflict", `The session is not running (${session.status}).`);
  const lease = ctx.deps.runtime.endpoint(sessionId);
  if (!lease) throw new AppError("conflict", "The session's browser does not run on this node, or is ending; call the node that runs it.");

  const secrets = openSecrets(ctx.deps.masterKey, row);
  // Before the first key press: a page may submit on its own (on input, on Enter).
  withholdPostData(lease.cdp);
  const started = Date.now();
  let result: Awaited<ReturnType<typeof fillLogin>>;
  try {
    result = await fillLogin(lease.cdp, {
      origins: row.origins,
      values: {
        username: secrets.username,
        password: secrets.password,
        ...(secrets.totp_secret ? { totp: totpCode(secrets.totp_secret, ctx.deps.now()) } : {}),
      },
      selectors: {
        ...(input.username_selector ? { username: input.username_selector } : {}),
        ...(input.password_selector ? { password: input.password_selector } : {}),
        ...(input.totp_selector ? { totp: input.totp_selector } : {}),
      },
      submit: input.submit,
    });
  } catch (err) {
    // A CDP failure names the method, never its parameters.
    ctx.log.warn({ sessionId, credentialId: row.id, err: (err as Error).message }, "credential fill failed");
    throw new AppError("conflict", "The session's browser could not be filled; it may have just ended, or its page is not answering.");
  } finally {
    ctx.deps.sessionLogs.commandLog(sessionId)?.(FILL_LOG_METHOD, started, Date.now() - started, false);
  }
  if (result.outcome === "no-tab") throw new AppError("conflict", "The session has no open tab to fill.");
  if (result.outcome === "origin-mismatch") {
    throw new AppError(
      "credential-origin-mismatch",
      `The active tab's top-level origin (${result.origin ?? "none"}) is not one of the credential's origins; nothing was filled.`,
    );
  }
  await prismaOf(ctx)
    .credential.updateMany({ where: { id: row.id }, data: { lastUsedAt: ctx.deps.now() } })
    .catch((err: unknown) => ctx.log.warn({ err, credentialId: row.id }, "could not note a credential's last use"));
  ctx.log.info({ sessionId, credentialId: row.id, filled: result.filled, origin: result.origin, submitted: input.submit }, "credential filled");
  return { filled: result.filled, origin: result.origin };
}
