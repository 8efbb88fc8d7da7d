// What the pipe (cdp-pipe.ts) reads off Chromium's messages without parsing them, and its errors.

const SESSION_TAIL = Buffer.from(',"sessionId":"', "latin1");
/** `,"sessionId":"` + 32 hex + `"}` */
export const TAIL_LENGTH = SESSION_TAIL.length + 32 + 2;

/** The session id a message of Chromium's ends with, or undefined for the pipe's own messages. */
export function sessionOf(message: Buffer): string | undefined {
  const n = message.length;
  if (n < TAIL_LENGTH + 2 || message[n - 1] !== 0x7d || message[n - 2] !== 0x22) return undefined;
  const at = n - TAIL_LENGTH;
  if (!message.subarray(at, at + SESSION_TAIL.length).equals(SESSION_TAIL)) return undefined;
  return message.toString("latin1", at + SESSION_TAIL.length, n - 2);
}

export class CdpPipeClosed extends Error {
  constructor() {
    super("the browser connection is closed");
    this.name = "CdpPipeClosed";
  }
}

export class CdpCallError extends Error {
  constructor(method: string, message: string) {
    super(`${method}: ${message}`);
    this.name = "CdpCallError";
  }
}
