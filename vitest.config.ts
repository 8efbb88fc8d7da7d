import { defaultServerConditions } from "vite";
import { defineConfig } from "vitest/config";

// The tests use the client from its workspace (`@vessel/client`, clients/typescript) by its source,
// through the package's own `@vessel/source` export condition: no build needed, never a stale one.
const conditions = ["@vessel/source", ...defaultServerConditions];

export default defineConfig({
  resolve: {
    // graphql 16 ships CJS (main) and ESM (module) without an exports map. Node resolves libraries'
    // imports to the CJS build while Vite would give our files the ESM one: two copies, and
    // "Cannot use GraphQLScalarType from another module". Pin everyone to what Node picks.
    alias: [{ find: /^graphql$/, replacement: "graphql/index.js" }],
    conditions,
  },
  ssr: { resolve: { conditions } },
  test: {
    include: ["test/**/*.test.ts"],
    // Real PostgreSQL, PGlite and Chromium make some set-up slow on a 2-core machine.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    maxWorkers: 2,
    globalSetup: ["test/support/global-setup.ts"],
  },
});
