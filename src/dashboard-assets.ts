import fs from "node:fs";
import path from "node:path";
import express, { type Express } from "express";
import { AppError } from "./errors.ts";

/** Where `npm run build:dashboard` (run by the start and test commands) writes the dashboard. */
export const dashboardDir = path.resolve(import.meta.dirname, "../dist/dashboard");

/**
 * Our own origin only: the app's code, styles and images, GraphQL over fetch and WebSocket, and the
 * live view (same origin, `/`) in a frame. Nothing inline, nothing from elsewhere.
 */
export const dashboardCsp = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  // The session inspector plays recordings from the API's own origin (GET /v1/sessions/{id}/recording).
  "media-src 'self'",
  "connect-src 'self'",
  "frame-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

/**
 * Serves the built dashboard under /dashboard/: hashed assets cached for a year (their names change
 * with their content), every other path answered with index.html (the app routes in the browser),
 * never cached, so a deploy is picked up on the next load.
 */
export function serveDashboard(app: Express): void {
  const index = path.join(dashboardDir, "index.html");
  const headers = (res: express.Response) => {
    res.setHeader("Content-Security-Policy", dashboardCsp);
    res.setHeader("X-Content-Type-Options", "nosniff");
    res.setHeader("Referrer-Policy", "no-referrer");
  };
  // serve-static answers other methods itself, with a bare 405: refused here as a problem document instead.
  app.use("/dashboard/assets", (req, _res, next) =>
    next(
      req.method === "GET" || req.method === "HEAD"
        ? undefined
        : new AppError("method-not-allowed", "Assets are only read (GET, HEAD).", {}, { Allow: "GET, HEAD" }),
    ),
  );
  app.use("/dashboard/assets", express.static(path.join(dashboardDir, "assets"), { immutable: true, maxAge: "365d", index: false, fallthrough: false }));
  app.get(["/dashboard", "/dashboard/{*rest}"], (_req, res) => {
    headers(res);
    if (!fs.existsSync(index)) {
      res.status(503).type("text/plain").send("The dashboard is not built. Run npm start (or npm run build:dashboard).\n");
      return;
    }
    res.setHeader("Cache-Control", "no-cache");
    res.sendFile(index);
  });
}
