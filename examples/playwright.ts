// Drive a Vessel session with Playwright over CDP.
//   VESSEL_API_KEY=vs_… VESSEL_BASE_URL=http://localhost:8080 npx tsx examples/playwright.ts [url]
import { chromium } from "playwright-core";
import { Vessel } from "@vessel/client";

const vessel = new Vessel();
const url = process.argv[2] ?? "https://example.com/";
const session = await vessel.sessions.create({ region: process.env.VESSEL_REGION ?? "us-east1" });
try {
  const browser = await chromium.connectOverCDP(session.connect_url!);
  // The session's browser starts with one context; pages opened in it share its cookies.
  const context = browser.contexts()[0] ?? (await browser.newContext());
  const page = await context.newPage();
  await page.goto(url);
  console.log(JSON.stringify({ session: session.id, title: await page.title(), heading: await page.locator("h1").first().textContent() }));
  await browser.close();
} finally {
  await vessel.sessions.release(session.id);
}
