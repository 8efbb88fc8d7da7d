import express, { type NextFunction, type Request, type Response } from "express";
import { z } from "zod";
import { closeCodeForEnd } from "../browser/close-codes.ts";
import { seal } from "../crypto/envelope.ts";
import { AppError } from "../errors.ts";
import { knownProblem, sendProblem, toAppError } from "../kernel/problems.ts";
import type { AppDeps, ServiceContext } from "../kernel/context.ts";
import { captureSessionHere } from "../services/profiles/profile-sessions.ts";
import { CreateSessionInput } from "../services/sessions/session-input.ts";
import { createSession } from "../services/sessions/create-session.ts";
import type { Cluster } from "./cluster.ts";
import { markPlaced } from "./placement.ts";
import { internalHeaders } from "./internal-auth.ts";

/**
 * `/internal/v1/…`: what nodes ask each other. Every call must carry a valid node signature
 * (internal-auth.ts); nothing here accepts an API key, a connect token or a sign-in, and nothing
 * here is in the route table or the OpenAPI document. Answers are JSON `{ok: true, …}` or
 * `{ok: false, problem}` with status 200, so the caller can tell a refusal from a transport failure.
 */

export const internalPrefix = "/internal/v1";

/** Who called, as the receiving node authenticated them (it checked the key or the sign-in). */
const Principal = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("apiKey"),
    keyId: z.string().min(1),
    keyPrefix: z.string().min(1),
    workspaceId: z.string().min(1),
    rateLimitPerMinute: z.number().int(),
    // Optional: a node of the previous release sends none, and the cap is then the deployment's.
    maxSessions: z.number().int().nullable().default(null),
  }),
  z.object({ kind: z.literal("user"), userId: z.string().min(1), email: z.string() }),
]);

const PlaceRequest = z.object({
  principal: Principal,
  requestId: z.string().min(1).max(64),
  // Optional: a node of the previous release does not send it.
  clientRequestId: z.string().max(128).nullable().optional(),
  ip: z.string().max(64).nullable(),
  audit: z.object({ action: z.string().min(1), successStatus: z.number().int(), workspaceId: z.string().nullable() }).nullable(),
  input: CreateSessionInput,
  idempotencyKey: z.string().min(1).max(64),
  workspace: z.string().max(128).nullable(),
});

const CaptureRequest = z.object({ workspaceId: z.string().min(1), baseProfileId: z.string().nullable() });
const EndRequest = z.object({ message: z.string().max(500).optional() });

function problemOf(error: AppError) {
  return { slug: error.slug, detail: error.detail, extensions: error.extensions, headers: error.headers };
}

export function internalRouter(deps: AppDeps, cluster: Cluster): express.Router {
  const router = express.Router();
  const log = deps.log.child({ component: "internal-api" });
  const refuse = (req: Request, res: Response, reason: string) => {
    log.warn({ reason, path: req.path, from: req.headers[internalHeaders.from] }, "refused an internal call");
    sendProblem(req, res, new AppError("unauthenticated", "Internal calls are made by Vessel nodes only."));
  };
  // Before any body is read: a request that is not even addressed to this node by a node goes at once.
  router.use((req: Request, res: Response, next: NextFunction) => {
    if (typeof req.headers[internalHeaders.signature] !== "string" || req.headers[internalHeaders.to] !== deps.nodeId)
      return refuse(req, res, "not signed for this node");
    next();
  });
  router.use(express.raw({ type: () => true, limit: "1mb" }));
  router.use((req: Request, res: Response, next: NextFunction) => {
    const body: Buffer = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const check = cluster.auth.verify(req.headers, req.method, req.originalUrl, body);
    if (!check.ok) return refuse(req, res, check.reason);
    res.locals.fromNode = check.from;
    try {
      req.body = body.length > 0 ? JSON.parse(body.toString("utf8")) : {};
    } catch {
      return sendProblem(req, res, new AppError("malformed-json", "The request body is not valid JSON."));
    }
    next();
  });

  const fail = (res: Response, err: unknown, extra: Record<string, unknown> = {}) => {
    const { error, unexpected } = toAppError(err);
    if (unexpected) log.error({ err, path: res.req.path }, "internal call failed");
    res.json({ ok: false, problem: problemOf(error), ...extra });
  };

  // A create placed here by a peer that could not run it (full, draining, another region).
  // Request and answer are sealed (a proxy password one way, connect tokens the other).
  router.post("/sessions", async (req: Request, res: Response) => {
    // Acknowledged at once (102): the caller gives up on a node that stays silent past its bound
    // (VESSEL_PLACEMENT_TIMEOUT_MS, peers.ts), while a browser's launch here may take longer.
    res.writeProcessing();
    const path = `${internalPrefix}/sessions`;
    const answer = (value: Record<string, unknown>) => res.json({ sealed: cluster.sealJson(`answer:${path}`, value) });
    const refuse = (err: unknown, extra: Record<string, unknown> = {}) => {
      const { error, unexpected } = toAppError(err);
      if (unexpected) log.error({ err }, "a placed create failed");
      answer({ ok: false, problem: problemOf(error), ...extra });
    };
    let parsed: ReturnType<typeof PlaceRequest.safeParse>;
    try {
      parsed = PlaceRequest.safeParse(cluster.openJson(path, String((req.body as { sealed?: unknown }).sealed)));
    } catch {
      return fail(res, new AppError("validation-failed", "The placement request could not be opened."));
    }
    if (!parsed.success) return refuse(new AppError("validation-failed", "The placement request is malformed."));
    const { principal, requestId, clientRequestId, ip, audit, input, idempotencyKey, workspace } = parsed.data;
    if (cluster.draining) return refuse(new AppError("service-unavailable", "This node is shutting down.", {}, { "Retry-After": "2" }), { tryElsewhere: true });
    if (cluster.fenced)
      return refuse(new AppError("service-unavailable", "This node cannot reach the database right now.", {}, { "Retry-After": "2" }), { tryElsewhere: true });
    const ctx: ServiceContext = {
      deps,
      requestId,
      clientRequestId: clientRequestId ?? null,
      log: deps.log.child({ requestId, placedBy: res.locals.fromNode }),
      principal,
      ip,
      ...(workspace ? { workspace } : {}),
      ...(audit
        ? {
            audit: {
              action: audit.action,
              target: null,
              successStatus: audit.successStatus,
              written: false,
              ...(audit.workspaceId ? { workspaceId: audit.workspaceId } : {}),
            },
          }
        : {}),
    };
    markPlaced(ctx);
    try {
      // The stored replay is a transport-neutral view (session-view.ts), whichever node made the first call.
      const outcome = await createSession(ctx, input, idempotencyKey);
      answer({ ok: true, outcome, auditWritten: ctx.audit?.written ?? false });
    } catch (err) {
      const slug = knownProblem(err)?.slug;
      const full = slug === "insufficient-capacity" || (slug === "service-unavailable" && deps.browsers.report().state !== "ready");
      refuse(err, { tryElsewhere: full });
    }
  });

  // A profile save made on another node: this node reads the browser; the document travels sealed.
  router.post("/sessions/:id/capture", async (req: Request, res: Response) => {
    const parsed = CaptureRequest.safeParse(req.body);
    if (!parsed.success) return fail(res, new AppError("validation-failed", "The capture request is malformed."));
    const id = String(req.params.id);
    try {
      const { document } = await captureSessionHere(deps, undefined, id, parsed.data.workspaceId, parsed.data.baseProfileId);
      const plaintext = Buffer.from(JSON.stringify(document));
      const sealed = seal(cluster.payloadKey, plaintext, `capture:${id}`).toString("base64");
      plaintext.fill(0);
      res.json({ ok: true, sealed });
    } catch (err) {
      fail(res, err);
    }
  });

  // Another node recorded this session's end: close its browser here (if the database agrees).
  router.post("/sessions/:id/end", async (req: Request, res: Response) => {
    const id = String(req.params.id);
    const parsed = EndRequest.safeParse(req.body);
    try {
      const row = await deps.db.prisma.session.findUnique({ where: { id }, select: { status: true, endReason: true } });
      const live = row && ["PENDING", "RUNNING", "REQUEST_RELEASE"].includes(row.status);
      // The clients here learn why from the recorded reason (browser/close-codes.ts), as on the node that ended it.
      if (!live) await deps.runtime.teardown(id, parsed.success ? parsed.data.message : undefined, closeCodeForEnd(row?.endReason));
      res.json({ ok: true, closed: !live });
    } catch (err) {
      fail(res, err);
    }
  });

  // A keepalive made on another node: the idle countdown restarts here.
  router.post("/sessions/:id/touch", (req: Request, res: Response) => {
    deps.runtime.touch(String(req.params.id));
    res.json({ ok: true });
  });

  router.use((_req: Request, res: Response) => {
    res.status(404).json({ ok: false, problem: problemOf(new AppError("not-found", "No internal call of this name.")) });
  });
  return router;
}
