/**
 * The MCP server over Streamable HTTP at `/mcp` (issue 22): a transport like REST and GraphQL, thin
 * over the services. Every HTTP request is authenticated by `Authorization: Bearer <API key>`, spends
 * one call of the key's rate limit and has its refusals audited, exactly as a REST call; each tool
 * call is audited on its own (./tool-call.ts).
 *
 * Connection-ful, not stateless: an agent's Puppeteer connections and its default session live for
 * its MCP connection (what the MCP specification calls a session: `Mcp-Session-Id`; in Vessel a
 * session is a browser session only), not one request, so a run of clicks reuses one CDP connection.
 * The MCP connection is bound to the key that opened it (another key is told it does not exist), is
 * held in this node's memory (behind a load balancer, route `/mcp` by that header or keep agents on
 * one node), and ends on DELETE, after `idleMs` without a request, when its key opens more than
 * maxConnectionsPerKey or its workspace more than maxConnectionsPerWorkspace (the least recently used
 * of that key or workspace goes), or when the node stops.
 */
import { randomUUID } from "node:crypto";
import express, { type Request, type Response } from "express";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import type { AppDeps, ServiceContext } from "../kernel/context.ts";
import { authenticateRequest } from "../services/audit/request-audit.ts";
import { registerCredentialTools } from "./credential-tools.ts";
import { registerHumanTools } from "./human-tools.ts";
import { registerPageTools } from "./page-tools.ts";
import { registerSessionTools } from "./session-tools.ts";
import { McpState } from "./state.ts";
import { authInfoFor, checkToolArguments } from "./tool-call.ts";

/** MCP connections one API key may hold open on a node (each keeps a server, a transport and its connections). */
export const maxConnectionsPerKey = 16;
/** MCP connections one workspace may hold open on a node, whatever number of keys it makes (keys cost nothing to create). */
export const maxConnectionsPerWorkspace = 64;

interface McpConnection {
  keyId: string;
  workspaceId: string;
  transport: StreamableHTTPServerTransport;
  state: McpState;
  lastSeen: number;
}

export interface McpEndpoint {
  handle(req: Request, res: Response): Promise<void>;
  /** MCP connections open on this node now. */
  readonly connections: number;
  close(): Promise<void>;
}

/** The server's tools, for one MCP connection. */
export function buildMcpServer(state: McpState): McpServer {
  const server = new McpServer(
    { name: "vessel", version: "0.1.0" },
    {
      // Logging: ask_human also sends its link as a log message, for clients that show those and not progress.
      capabilities: { logging: {} },
      instructions:
        "Vessel runs remote Chromium browsers. Start one with create_session, open pages with navigate, read them with snapshot " +
        "(elements carry references like e12), act with click, type, press_key and scroll, look with screenshot. When a step needs " +
        "a person (a CAPTCHA, a second factor), call ask_human and pass its live-view link on. Release the session when done.",
    },
  );
  checkToolArguments(server);
  registerSessionTools(server, state);
  registerPageTools(server, state);
  registerHumanTools(server, state);
  registerCredentialTools(server, state);
  return server;
}

const parseJson = express.json({ limit: "1mb", strict: true });

function rpcError(res: Response, status: number, message: string): void {
  res.status(status).json({ jsonrpc: "2.0", error: { code: -32000, message }, id: null });
}

export function createMcpEndpoint(deps: AppDeps, opts: { context(req: Request, res: Response): ServiceContext; idleMs?: number }): McpEndpoint {
  const connections = new Map<string, McpConnection>();
  const idleMs = opts.idleMs ?? 30 * 60_000;

  const end = async (id: string) => {
    const s = connections.get(id);
    if (!s) return;
    connections.delete(id);
    await s.state.close();
    await s.transport.close().catch(() => {});
  };
  // A revoked key's MCP connections end with it, so they no longer hold their browsers' CDP connections
  // (every request of theirs is refused from the revocation on anyway): at once when this node
  // revokes it, within a sweep when another node did.
  const endKey = (keyId: string) => {
    for (const [id, s] of connections) if (s.keyId === keyId) void end(id);
  };
  const unsubscribe = deps.auth.onRevoked(endKey);
  const sweep = setInterval(
    () => {
      const now = Date.now();
      for (const [id, s] of connections) if (now - s.lastSeen > idleMs) void end(id);
      for (const keyId of new Set([...connections.values()].map((s) => s.keyId))) {
        deps.auth.isRevoked(keyId).then(
          (revoked) => revoked && endKey(keyId),
          () => {},
        );
      }
    },
    Math.min(idleMs, 60_000),
  );
  sweep.unref();

  /** Ends the least recently used of `mine` when they number `max` already. */
  const makeRoom = async (mine: (s: McpConnection) => boolean, max: number) => {
    const own = [...connections].filter(([, s]) => mine(s)).sort(([, a], [, b]) => a.lastSeen - b.lastSeen);
    if (own.length >= max) await end(own[0]![0]);
  };

  async function open(keyId: string, workspaceId: string): Promise<McpConnection> {
    // Opening one more ends the least recently used of the key's own, then of its workspace's: a
    // tenant only ever ends its own, and cannot fill the node's memory by minting keys.
    await makeRoom((s) => s.keyId === keyId, maxConnectionsPerKey);
    await makeRoom((s) => s.workspaceId === workspaceId, maxConnectionsPerWorkspace);
    const state = new McpState(deps);
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void connections.set(id, entry),
      onsessionclosed: (id) => void end(id),
    });
    const entry: McpConnection = { keyId, workspaceId, transport, state, lastSeen: Date.now() };
    transport.onclose = () => {
      if (transport.sessionId) void end(transport.sessionId);
      else void state.close();
    };
    await buildMcpServer(state).connect(transport);
    return entry;
  }

  return {
    async handle(req, res) {
      const ctx = opts.context(req, res);
      const { principal, limitHeaders } = await authenticateRequest(deps, req, ctx.ip ?? "", { acceptUsers: false });
      for (const [name, value] of Object.entries(limitHeaders)) res.setHeader(name, value);
      if (principal.kind !== "apiKey") return rpcError(res, 403, "The MCP server takes an API key.");
      if (!["GET", "POST", "DELETE"].includes(req.method)) return rpcError(res, 405, "/mcp takes GET, POST and DELETE.");
      // Parsed after authentication, as REST bodies are (a stranger's body costs nothing).
      if (req.method === "POST") await new Promise<void>((resolve, reject) => parseJson(req, res, (err?: unknown) => (err ? reject(err) : resolve())));
      const connectionId = req.get("mcp-session-id");
      let connection: McpConnection | undefined;
      if (connectionId) {
        connection = connections.get(connectionId);
        // Another key's MCP connection is indistinguishable from one that ended: the client starts a new one.
        // (The answer keeps the MCP specification's word, session: the client knows it by that name.)
        if (!connection || connection.keyId !== principal.keyId)
          return rpcError(res, 404, "No such MCP session (it ended, or another key opened it): initialize again.");
      } else if (req.method === "POST" && isInitializeRequest(req.body)) {
        connection = await open(principal.keyId, principal.workspaceId);
      } else {
        return rpcError(res, 400, "Send initialize first, then the Mcp-Session-Id header it answered with.");
      }
      connection.lastSeen = Date.now();
      const withAuth = Object.assign(req, { auth: authInfoFor({ ...ctx, principal }, principal.keyPrefix) });
      await connection.transport.handleRequest(withAuth, res, req.body);
    },
    get connections() {
      return connections.size;
    },
    async close() {
      clearInterval(sweep);
      unsubscribe();
      await Promise.all([...connections.keys()].map(end));
    },
  };
}
