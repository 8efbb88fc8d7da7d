import path from "node:path";
import express, { type Request, type Response, type Router } from "express";
import { AppError } from "../errors.ts";
import type { AppDeps } from "../kernel/context.ts";
import { authorizeLiveView } from "../services/sessions/live-view.ts";
import { assetsPath, errorPage, landingPage, viewerPage, viewerPath } from "./pages.ts";

const assetsDir = path.join(path.dirname(new URL(import.meta.url).pathname), "assets");

/**
 * The page's URL carries a credential (spec 5.3), so: nothing of it leaves in a Referer, nothing
 * is cached, the page cannot be framed (no clickjacking of the Done button), and only our own
 * scripts run and only our own origin is reached (research/security.md test H46).
 */
export function liveViewCsp(publicBaseUrl: string): string {
  const socketOrigin = new URL(publicBaseUrl).origin.replace(/^http/, "ws");
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    // 'self' covers ws: on the same origin in current browsers; the explicit origin serves older ones.
    `connect-src 'self' ${socketOrigin}`,
    "base-uri 'none'",
    "form-action 'none'",
    // Only our own dashboard (same origin) may embed the view; no other site can frame it.
    "frame-ancestors 'self'",
  ].join("; ");
}

function pageHeaders(res: Response, csp: string): void {
  res.setHeader("Content-Security-Policy", csp);
  res.setHeader("Cache-Control", "no-store");
  res.setHeader("Referrer-Policy", "no-referrer");
  res.setHeader("X-Content-Type-Options", "nosniff");
  res.setHeader("X-Frame-Options", "SAMEORIGIN");
  res.setHeader("Cross-Origin-Opener-Policy", "same-origin");
  res.setHeader("Cross-Origin-Resource-Policy", "same-origin");
}

/** `GET /?token=…` (the live_view_url), `GET /live-view` (where a reload lands) and the page's own assets. */
export function liveViewRoutes(deps: AppDeps): Router {
  const router = express.Router();
  const csp = liveViewCsp(deps.config.publicBaseUrl);
  const viewer = viewerPage();
  const landing = landingPage();

  router.get("/", async (req: Request, res: Response) => {
    pageHeaders(res, csp);
    const token = typeof req.query.token === "string" ? req.query.token : undefined;
    if (req.query.token === undefined) return void res.type("html").send(landing);
    try {
      await authorizeLiveView(deps, token);
    } catch (err) {
      const error = err instanceof AppError ? err : new AppError("internal-error", "The link could not be checked.");
      if (!(err instanceof AppError)) deps.log.error({ err, requestId: res.locals.requestId }, "live view: could not check a link");
      for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
      return void res
        .status(error.status)
        .type("html")
        .send(errorPage(error, String(res.locals.requestId ?? "")));
    }
    res.type("html").send(viewer);
  });

  router.get(viewerPath, (_req: Request, res: Response) => {
    pageHeaders(res, csp);
    res.type("html").send(viewer);
  });

  router.use(
    assetsPath,
    express.static(assetsDir, {
      index: false,
      // Revalidated on each load, so a page never runs a script older than the server it talks to.
      setHeaders: (res) => res.setHeader("Cache-Control", "no-cache"),
    }),
  );
  return router;
}
