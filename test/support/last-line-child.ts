import assert from "node:assert";
import { installLastLineOfDefence } from "../../src/last-line.ts";
import { createLogger } from "../../src/logger.ts";
import { defineRoute } from "../../src/rest/define-route.ts";
import { startTestApp } from "./app.ts";

// A real server with the process's last line of defence installed, as src/main.ts installs it, and
// routes that fail the ways nobody catches (test/integration/last-line.test.ts drives it). Logs are
// JSON lines on stdout; `outside` on stdin throws from a timer outside any client's handling.

const route = (name: string, handler: () => Promise<unknown>) =>
  defineRoute({
    method: "get",
    path: `/v1/test-${name}`,
    operationId: `test_${name}`,
    summary: "test",
    tags: ["Test"],
    auth: "none",
    input: {},
    status: 200,
    handler,
  });

const log = createLogger("info");
const routes = [
  route("late-throw", async () => {
    setTimeout(() => {
      throw new TypeError("a late throw in a timer a request started");
    });
    return {};
  }),
  route("floating-rejection", async () => {
    void Promise.reject(new Error("a rejection nobody handled"));
    return {};
  }),
  route(
    "throw-before-answer",
    () =>
      new Promise(() =>
        setTimeout(() => {
          throw new RangeError("thrown before the answer was sent");
        }),
      ),
  ),
  route("broken-invariant", async () => {
    setTimeout(() => assert.fail("an invariant does not hold"));
    return {};
  }),
];
const t = await startTestApp({ log, extraRoutes: routes });
installLastLineOfDefence(log);
process.stdin.on("data", (d: Buffer) => {
  if (d.toString().includes("outside"))
    setTimeout(() => {
      throw new Error("outside any client's handling");
    });
});
process.stdout.write(`READY ${t.url}\n`);
