import { createRequire } from "node:module";
import path from "node:path";
import type { GraphiQLOptions } from "graphql-yoga";

/** Where the GraphiQL bundle is served from (this origin, never a CDN). */
export const graphiqlAssetsPath = "/_graphiql";
export const graphiqlAssetsDir = path.dirname(createRequire(import.meta.url).resolve("@graphql-yoga/graphiql"));
export const graphiqlStartScript = path.join(path.dirname(new URL(import.meta.url).pathname), "graphiql-start.js");

/** Strict enough for a page that renders user-typed queries: no inline script, no other origin. */
export const graphiqlCsp = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "worker-src 'self' blob:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join("; ");

export function graphiqlPage(options?: GraphiQLOptions): string {
  // The options travel as JSON in a non-executable script element; `<` is escaped so they cannot close it.
  const json = JSON.stringify(options ?? {}).replace(/</g, "\\u003c");
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Vessel GraphQL</title>
<meta name="viewport" content="width=device-width,initial-scale=1">
<link rel="icon" href="data:,"><link rel="stylesheet" href="${graphiqlAssetsPath}/graphiql.css"></head>
<body><div id="root">Loading GraphiQL…</div>
<script id="graphiql-options" type="application/json">${json}</script>
<script src="${graphiqlAssetsPath}/start.js"></script>
<script src="${graphiqlAssetsPath}/yoga-graphiql.umd.js"></script>
</body></html>`;
}
