// The dashboard's own rule (test/unit/architecture.test.ts): no import cycle. It is cruised from this
// folder, with its own tsconfig (its `@gql/*` alias), apart from the server's rules.
module.exports = {
  forbidden: [{ name: "no-circular", severity: "error", from: { path: "^src/" }, to: { circular: true } }],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".tsx", ".js"] },
  },
};
