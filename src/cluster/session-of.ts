import type { IncomingMessage } from "node:http";
import { decodeJwt } from "jose";

/** The session a CDP request names: the `sub` of its token, read without checking it (the owner checks it). */
export function cdpSessionOf(req: IncomingMessage, url: URL): string | undefined {
  const token = url.searchParams.get("token") ?? /^Bearer +(\S+)$/i.exec(req.headers.authorization ?? "")?.[1];
  if (!token) return undefined;
  try {
    const sub = decodeJwt(token).sub;
    return typeof sub === "string" && sub.length <= 64 ? sub : undefined;
  } catch {
    return undefined;
  }
}

/** The session a live-view socket names (`?session=`, a routing hint; the token comes as its first message). */
export function liveViewSessionOf(_req: IncomingMessage, url: URL): string | undefined {
  const id = url.searchParams.get("session");
  return id && /^ses_[0-9A-Za-z]{1,40}$/.test(id) ? id : undefined;
}
