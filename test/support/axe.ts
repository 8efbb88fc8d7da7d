import fs from "node:fs";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";

/** axe-core's source, evaluated in the page over CDP (the dashboard's CSP would refuse it as a script tag). */
const source = fs.readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

export const axeTags = ["wcag2a", "wcag2aa", "wcag21aa", "best-practice"];
export const desktop = { width: 1440, height: 900 };
export const phone = { width: 390, height: 844 };

export interface AxeFinding {
  state: string;
  id: string;
  impact: string;
  help: string;
  targets: string[];
  /** axe's words for the first node (for contrast: the colours and the ratio). */
  why: string;
}

/** The serious and critical violations axe finds on the page as it is now. */
export async function axeViolations(page: Page, state: string): Promise<AxeFinding[]> {
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(source);
  const result = await page.evaluate(
    (tags) =>
      (window as unknown as { axe: { run: (c: Document, o: unknown) => Promise<{ violations: Array<Record<string, unknown>> }> } }).axe.run(document, {
        runOnly: { type: "tag", values: tags },
        resultTypes: ["violations"],
      }),
    axeTags,
  );
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => ({
      state,
      id: String(v.id),
      impact: String(v.impact),
      help: String(v.help),
      targets: (v.nodes as Array<{ target: unknown[] }>).slice(0, 5).map((n) => n.target.map(String).join(" ")),
      why: String((v.nodes as Array<{ failureSummary?: string }>)[0]?.failureSummary ?? ""),
    }));
}

async function settle(page: Page): Promise<void> {
  await page.waitForTimeout(250);
  await page.evaluate(() => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))));
}

/**
 * Runs axe on the page in the four ways it is seen (light and dark, desktop and phone), after
 * `prepare` has put it in the state to check (it runs again after each resize, as a dialog may
 * close). Returns the serious and critical findings; the viewport and scheme are restored.
 */
export async function axeEverywhere(page: Page, name: string, prepare: () => Promise<void> = async () => undefined): Promise<AxeFinding[]> {
  const found: AxeFinding[] = [];
  for (const scheme of ["light", "dark"] as const) {
    for (const [size, viewport] of [
      ["desktop", desktop],
      ["phone", phone],
    ] as const) {
      await page.emulateMedia({ colorScheme: scheme, reducedMotion: "reduce" });
      await page.setViewportSize(viewport);
      await prepare();
      // Two frames painted after the change, so styles and layout are the new ones before axe measures.
      await settle(page);
      let now = await axeViolations(page, `${name} ${scheme} ${size}`);
      // Measured again once: right after a scheme and size change together, Chromium sometimes reports a
      // background of the previous scheme for a frame. A real finding is there the second time too.
      if (now.length > 0) {
        await page.waitForTimeout(1000);
        await settle(page);
        now = await axeViolations(page, `${name} ${scheme} ${size}`);
      }
      found.push(...now);
    }
  }
  await page.emulateMedia({ colorScheme: "light", reducedMotion: null });
  await page.setViewportSize(desktop);
  return found;
}
