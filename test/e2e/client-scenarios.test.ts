import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { startClientHarness, type ClientHarness } from "../support/client-harness.ts";
import { ScenarioRunner, harness, matcherChecks, mismatches, scenarios } from "../support/scenario-runner.ts";
import { chromiumPath, servicesRequired } from "../support/services.ts";

const hasChromium = chromiumPath() !== undefined;
if (!hasChromium && servicesRequired) throw new Error("Chromium is required (VESSEL_REQUIRE_SERVICES=1) but not installed");

// clients/scenarios.json with the TypeScript client; test/e2e/python-client.test.ts runs the same
// file with the Python client against the same kind of server.
describe.skipIf(!hasChromium)("the shared client scenarios, TypeScript client", () => {
  let t: TestApp;
  let h: ClientHarness;
  let runner: ScenarioRunner;
  beforeAll(async () => {
    // Two browsers: the full-node scenarios fill them.
    t = await startTestApp({ env: { VESSEL_BROWSER_CAPACITY: "2" } });
    h = await startClientHarness(t);
    runner = new ScenarioRunner(h.url, (await harness(h.url, "setup")) as { base_url: string; keys: Record<string, string> });
  });
  afterAll(async () => {
    await h?.close();
    await t?.stop();
  });

  for (const scenario of scenarios) it(scenario.name, () => runner.run(scenario), 120_000);
});

describe("the scenario runner's matchers", () => {
  it("decide every check in clients/scenarios.json as it says (the Python runner checks the same list)", () => {
    const wrong = matcherChecks.filter((c) => (mismatches(c.expected, c.actual).length === 0) !== c.ok);
    expect(wrong).toEqual([]);
  });
});
