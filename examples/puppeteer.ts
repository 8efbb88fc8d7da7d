// Drive a Vessel session with Puppeteer: create → connect → work → release.
//   VESSEL_API_KEY=vs_… VESSEL_BASE_URL=http://localhost:8080 npx tsx examples/puppeteer.ts [url]
import puppeteer from "puppeteer-core";
import { Vessel } from "@vessel/client";

const vessel = new Vessel();
const url = process.argv[2] ?? "https://example.com/";
const session = await vessel.sessions.create({ region: process.env.VESSEL_REGION ?? "us-east1" });
try {
  const browser = await puppeteer.connect({ browserWSEndpoint: session.connect_url! });
  const page = await browser.newPage();
  await page.goto(url);
  console.log(JSON.stringify({ session: session.id, title: await page.title() }));
  await browser.disconnect();
} finally {
  // Always release: an idle session would otherwise hold a browser until its idle timeout.
  await vessel.sessions.release(session.id);
}
