import { createApp, type App, type AppOptions } from "../../src/app.ts";
import { loadConfig, type Config } from "../../src/config.ts";
import { openDatabase, type Database } from "../../src/db/client.ts";

export interface TestApp {
  app: App;
  config: Config;
  url: string;
  stop(): Promise<void>;
}

/** A real server on a free loopback port. Without `db`, an in-memory PGlite that dies with the app. */
export async function startTestApp(
  options: AppOptions & { env?: Record<string, string> } = {},
): Promise<TestApp> {
  const config = loadConfig({ PORT: "0", VESSEL_HOST: "127.0.0.1", LOG_LEVEL: "silent", ...options.env }, "/nonexistent");
  const ownDb: Database | undefined = options.db ? undefined : await openDatabase({ dataDir: "memory://" });
  const app = await createApp(config, { checkResponses: true, ...options, db: options.db ?? ownDb });
  await app.start();
  return {
    app,
    config,
    url: app.url,
    async stop() {
      await app.stop();
      await ownDb?.close();
    },
  };
}
