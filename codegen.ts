import type { CodegenConfig } from "@graphql-codegen/cli";

// Typed documents for the named operations in schema/operations, used by the dashboard and the tests.
// Regenerated with the other artifacts by `npm run generate`; a test fails when they drift.
const config: CodegenConfig = {
  schema: "schema/schema.graphql",
  documents: ["schema/operations/**/*.graphql"],
  ignoreNoDocuments: true,
  generates: {
    "src/generated/gql/": {
      preset: "client",
      presetConfig: { fragmentMasking: false },
      config: {
        useTypeImports: true,
        enumsAsTypes: true,
        emitLegacyCommonJSImports: false,
        documentMode: "string",
        // ISO 8601 strings on the wire (the DateTime scalar).
        scalars: { DateTime: "string" },
      },
    },
  },
};

export default config;
