// Calling a peer node, and reading what it answered or why it could not be reached.
import { AppError, isProblemSlug } from "../kernel/errors.ts";
import type { NodeInfo } from "../services/nodes/nodes.ts";
import type { InternalAuth } from "./internal-auth.ts";

/** An authenticated JSON call to a peer (POST `path` with `payload`); its JSON answer. */
export async function callPeer(auth: InternalAuth, node: NodeInfo, path: string, payload: unknown, timeoutMs: number): Promise<unknown> {
  const body = JSON.stringify(payload);
  const res = await fetch(`${node.internalUrl}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...auth.sign(node.id, "POST", path, body) },
    body,
    signal: AbortSignal.timeout(timeoutMs),
  });
  return res.json();
}

/** The problem a peer answered with, as an AppError (anything unknown is a 500). */
export function problemFromPeer(p: { slug?: unknown; detail?: unknown; extensions?: unknown; headers?: unknown } | undefined): AppError {
  if (!p || typeof p.slug !== "string" || !isProblemSlug(p.slug)) return new AppError("internal-error", "Another node failed to answer.");
  return new AppError(
    p.slug,
    typeof p.detail === "string" ? p.detail : "",
    (p.extensions && typeof p.extensions === "object" ? p.extensions : {}) as Record<string, unknown>,
    (p.headers && typeof p.headers === "object" ? p.headers : {}) as Record<string, string>,
  );
}

/** Whether a call never reached its node (so another node may be tried; nothing happened over there). */
export function isConnectFailure(err: unknown): boolean {
  const code = (err as { cause?: { code?: string } })?.cause?.code;
  return ["ECONNREFUSED", "ENOTFOUND", "EHOSTUNREACH", "ENETUNREACH", "UND_ERR_CONNECT_TIMEOUT"].includes(code ?? "");
}
