import { downloadBehaviourContext, judgeCommand } from "./policy.ts";

/**
 * One client message of the CDP relay (browser/cdp/relay/relay.ts), from its bytes to what is done with it: parsed,
 * checked for shape, judged by the method policy (policy.ts). Pure, so that it runs the same on
 * the node's event loop and on the judging thread that takes large messages (judge-thread.ts).
 */

export interface Command {
  id: number;
  method: string;
  params?: Record<string, unknown>;
  sessionId?: string;
}

/** What to do with a message: answer it here (malformed, refused), or send the judged command on. */
export type Outcome =
  | { kind: "answer"; answer: string; refused?: { method: string; reason: string } }
  | {
      kind: "send";
      command: Command;
      /** The policy replaced a download folder with the session's own. */
      redirected: boolean;
      /** A download behaviour was set: for which browser context (null: the default one). */
      downloadContext: string | null | undefined;
    };

/** CDP method names are `Domain.method`; anything longer or odder is not one. */
const METHOD_NAME = /^[A-Za-z][A-Za-z0-9]{0,63}\.[A-Za-z][A-Za-z0-9]{0,127}$/;

/** A CDP error answer, as Chromium words its own. */
export function errorAnswer(id: number | undefined, code: number, message: string, sessionId?: string): string {
  return JSON.stringify({ ...(id !== undefined ? { id } : {}), error: { code, message }, ...(sessionId !== undefined ? { sessionId } : {}) });
}

/** The command in a client's message, or the error to answer it with. */
export function readCommand(data: Uint8Array): Command | { answer: string } {
  let message: unknown;
  try {
    message = JSON.parse(Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString("utf8"));
  } catch {
    return { answer: errorAnswer(undefined, -32700, "Message must be valid JSON") };
  }
  if (typeof message !== "object" || message === null || Array.isArray(message)) {
    return { answer: errorAnswer(undefined, -32600, "Message must be an object") };
  }
  const { id, method, params, sessionId } = message as Record<string, unknown>;
  if (typeof id !== "number" || !Number.isSafeInteger(id) || id < 0) {
    return { answer: errorAnswer(undefined, -32600, "Message must have integer 'id' property") };
  }
  const attachment = typeof sessionId === "string" ? sessionId : undefined;
  if (sessionId !== undefined && attachment === undefined)
    return { answer: errorAnswer(id, -32600, "Message has property other than 'id', 'method', 'sessionId', 'params'") };
  if (typeof method !== "string" || !METHOD_NAME.test(method))
    return { answer: errorAnswer(id, -32600, "Message must have string 'method' property", attachment) };
  if (params !== undefined && (typeof params !== "object" || params === null || Array.isArray(params))) {
    return { answer: errorAnswer(id, -32602, "Invalid parameters", attachment) };
  }
  return { id, method, ...(params ? { params: params as Record<string, unknown> } : {}), ...(attachment !== undefined ? { sessionId: attachment } : {}) };
}

/** Reads and judges one client message (`policy` false: shape checks only). */
export function commandOutcome(data: Uint8Array, policy: boolean, downloads: string): Outcome {
  const command = readCommand(data);
  if ("answer" in command) return { kind: "answer", answer: command.answer };
  if (!policy) return { kind: "send", command, redirected: false, downloadContext: undefined };
  const verdict = judgeCommand(command.method, command.params ?? {}, { downloads });
  if (verdict.kind === "refuse") {
    return {
      kind: "answer",
      answer: errorAnswer(command.id, -32000, `Vessel policy: ${command.method} refused: ${verdict.reason}`, command.sessionId),
      refused: { method: command.method, reason: verdict.reason },
    };
  }
  const judged = verdict.kind === "rewrite" ? { ...command, params: verdict.params } : command;
  return { kind: "send", command: judged, redirected: verdict.kind === "rewrite", downloadContext: downloadBehaviourContext(judged) };
}
