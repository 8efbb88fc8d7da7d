import type { AppError } from "../errors.ts";

export const assetsPath = "/live-view/assets";
/** Where the page moves itself after load, so the token leaves the address bar and history (a reload lands here). */
export const viewerPath = "/live-view";

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function shell(title: string, body: string, script = false): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<meta name="viewport" content="width=device-width,initial-scale=1,viewport-fit=cover">
<meta name="referrer" content="no-referrer"><meta name="robots" content="noindex">
<link rel="icon" href="data:,"><link rel="stylesheet" href="${assetsPath}/viewer.css">
${script ? `<script type="module" src="${assetsPath}/viewer.js"></script>` : ""}</head>
${body}</html>`;
}

/**
 * The viewer: static markup that its script fills in from the socket (instructions, mode, tabs,
 * time left), so the same page serves the first load and a reload.
 */
export function viewerPage(): string {
  return shell(
    "Live view · Vessel",
    `<body class="viewer">
<header class="bar">
  <span class="brand">Live view</span>
  <span id="state" class="state" data-state="connecting" role="status">Connecting…</span>
  <span id="remaining" class="remaining" hidden></span>
  <span id="mode" class="mode" hidden>View only</span>
  <span class="spacer"></span>
  <button id="keyboard" class="secondary" type="button" hidden title="Open the keyboard to type into the page">Keyboard</button>
  <button id="paste" class="secondary" type="button" hidden title="Paste your clipboard's text into the page">Paste</button>
  <button id="done" class="done" type="button" hidden>Done</button>
</header>
<p id="done-status" class="done-status" role="status" hidden></p>
<p id="instructions" class="instructions" hidden></p>
<nav id="tabs" class="tabs" aria-label="Tabs in the session's browser" hidden></nav>
<main id="stage" class="stage">
  <canvas id="screen" aria-label="The session's browser"></canvas>
  <textarea id="keys" class="keys" aria-label="Keyboard input for the session's browser" autocapitalize="off" autocomplete="off" autocorrect="off" spellcheck="false"></textarea>
  <div id="overlay" class="overlay" hidden><div class="card"><h1 id="overlay-title"></h1><p id="overlay-text"></p></div></div>
</main>
</body>`,
    true,
  );
}

/** `/` without a token. The dashboard will take this address; until then it says what it is for. */
export function landingPage(): string {
  return shell(
    "Vessel",
    `<body class="message"><main class="card">
<h1>Vessel</h1>
<p class="lead"><a href="/dashboard/">Open the dashboard</a> to sign in, see your sessions and manage API keys.</p>
<p>This address also opens <strong>live views</strong> of browser sessions. If someone asked you to help with a session, open the full link they sent you: it ends with <code>?token=…</code>.</p>
<p>Developers: the API is described at <a href="/openapi.json">/openapi.json</a>.</p>
</main></body>`,
  );
}

const headings: Record<number, string> = {
  401: "This link no longer works",
  404: "This session does not exist",
  410: "This session has ended",
  503: "The live view is unavailable right now",
};

/** A refused link, said plainly: no token, no stack, and what to do next. */
export function errorPage(error: AppError, requestId: string): string {
  const next =
    error.status >= 500
      ? "Try again in a few seconds."
      : error.status === 410
        ? "There is nothing left to watch."
        : "Ask the person who sent it for a fresh link.";
  return shell(
    `${headings[error.status] ?? error.title} · Vessel`,
    `<body class="message"><main class="card">
<h1>${escapeHtml(headings[error.status] ?? error.title)}</h1>
<p>${escapeHtml(error.detail)}</p>
${/fresh link/i.test(error.detail) ? "" : `<p>${escapeHtml(next)}</p>`}
<p class="fine">Reference ${escapeHtml(requestId)}</p>
</main></body>`,
  );
}
