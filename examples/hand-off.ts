// Human hand-off: an agent opens a page, gets stuck (a CAPTCHA, MFA, a signature), hands a person
// the live view, waits until they click Done, then carries on in the same browser.
//   VESSEL_API_KEY=vs_… VESSEL_BASE_URL=http://localhost:8080 npx tsx examples/hand-off.ts [url]
import puppeteer from "puppeteer-core";
import { TimeoutError, Vessel } from "@vessel/client";

const vessel = new Vessel();
const url = process.argv[2] ?? "https://example.com/";
const session = await vessel.sessions.create({
  region: process.env.VESSEL_REGION ?? "us-east1",
  liveView: { interactive: true, instructions: "Please complete the sign-in, then click Done." },
});
try {
  const browser = await puppeteer.connect({ browserWSEndpoint: session.connect_url! });
  const [page = await browser.newPage()] = await browser.pages();
  await page.goto(url);

  // Send this link to the person (it is valid about 5 minutes; keepalive mints a new one).
  console.log(JSON.stringify({ session: session.id, live_view_url: session.live_view_url }));
  try {
    const done = await vessel.sessions.waitForLiveViewDone(session.id, { timeoutSeconds: Number(process.env.DONE_TIMEOUT ?? 600) });
    console.log(JSON.stringify({ done: done.created_at, title: await page.title() }));
  } catch (err) {
    if (!(err instanceof TimeoutError)) throw err;
    console.log(JSON.stringify({ timeout: err.message }));
    process.exitCode = 3;
  }
  await browser.disconnect();
} finally {
  await vessel.sessions.release(session.id);
}
