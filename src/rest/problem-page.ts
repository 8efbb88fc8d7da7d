import { problemTypes, type ProblemSlug } from "../errors.ts";

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The human page behind each problem `type` address. */
export function problemPage(slug: ProblemSlug): string {
  const p = problemTypes[slug];
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(p.title)} · Vessel</title>
<meta name="viewport" content="width=device-width,initial-scale=1">
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem;color:#1f2328}code{background:#f3f4f6;padding:.1em .3em;border-radius:4px}</style>
</head><body><p>HTTP ${p.status} · problem type <code>${escapeHtml(slug)}</code></p><h1>${escapeHtml(p.title)}</h1>
<p>${escapeHtml(p.description).replace(/`([^`]+)`/g, "<code>$1</code>")}</p></body></html>`;
}
