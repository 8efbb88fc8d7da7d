import { CONSOLE_LINK_LIFETIME_SECONDS, type ConsoleSignIn } from "./services/sign-ins/console-sign-in.ts";

/** What the start prints on the console (stderr): the dashboard's address and, when there is one, the link. */
export function consoleBanner(dashboardUrl: string, signIn: ConsoleSignIn | null, keyFile: string | null): string {
  const lines = ["", `  Vessel dashboard: ${dashboardUrl}`];
  if (signIn) {
    const minutes = Math.round(CONSOLE_LINK_LIFETIME_SECONDS / 60);
    lines.push(
      `  Sign in as ${signIn.email} with this one-time link (it works once, within ${minutes} minutes;`,
      "  run `npm run sign-in-link` for a new one). It is shown only here, never in the log or in a mail:",
      `    ${signIn.link}`,
    );
  }
  if (keyFile) lines.push(`  API key of workspace "default": ${keyFile}  (export VESSEL_API_KEY=$(cat ${keyFile}))`);
  return `${lines.join("\n")}\n\n`;
}

/** The link once more, alone, as the start's last line: the banner above may have scrolled away. */
export function lastLine(signIn: ConsoleSignIn): string {
  return `Sign in (one-time link, \`npm run sign-in-link\` for another): ${signIn.link}\n`;
}
