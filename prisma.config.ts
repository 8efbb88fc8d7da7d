import { defineConfig } from "prisma/config";

// Offline: the Prisma CLI downloads its native schema engine before `generate`, unless
// PRISMA_SCHEMA_ENGINE_BINARY names an existing file. `generate` never runs it, so any file will do.
// Migrations do not use the CLI at all: see scripts/db.ts and src/db/migrate.ts.
process.env.PRISMA_SCHEMA_ENGINE_BINARY ??= "/bin/false";

export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
});
