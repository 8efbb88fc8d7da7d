import type { CdpPipe } from "../pipe/pipe.ts";

/**
 * After the server fills a login form in a session (services/credentials), the form's submission
 * would show the session's CDP clients what was typed: Chromium puts a request's body in
 * `Network.requestWillBeSent` (`postData`, `postDataEntries`), in `Fetch.requestPaused`, and in the
 * answer to `Network.getRequestPostData`. For a while after each fill the relay sends those
 * messages on without the body (`hasPostData` stays, so a client knows there was one). Only
 * messages that hold the word are parsed; everything else goes on untouched, as always.
 */

/** How long after a fill request bodies are withheld: a form's submission follows at once, a slow page's within seconds. */
export const WITHHOLD_POST_DATA_MS = 60_000;

const NEEDLE = Buffer.from('"postData', "latin1");

/** Withholds request bodies from the session's CDP clients for `ms` from now, wherever its relay runs. */
export function withholdPostData(pipe: CdpPipe, ms = WITHHOLD_POST_DATA_MS): void {
  const until = Date.now() + ms;
  pipe.withholdPostDataUntil = Math.max(pipe.withholdPostDataUntil, until);
  pipe.link?.tell({ vessel: "withholdPostData", until });
}

function strip(value: unknown): void {
  if (value === null || typeof value !== "object") return;
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (key === "postData" || key === "postDataEntries") delete record[key];
    else strip(record[key]);
  }
}

/** The message without any request body it carries (the message itself when it carries none). */
export function withoutPostData(message: Buffer): Buffer {
  if (message.indexOf(NEEDLE) === -1) return message;
  let parsed: unknown;
  try {
    parsed = JSON.parse(message.toString("utf8"));
  } catch {
    return message;
  }
  strip(parsed);
  return Buffer.from(JSON.stringify(parsed), "utf8");
}
