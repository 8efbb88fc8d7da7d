// The dependency rules of the house (docs/architecture.md), checked by test/unit/architecture.test.ts.
// Transports are adapters over the domain services; they never import each other. Domains
// (src/services/<domain>/) sit on the kernel (src/kernel/) and know no transport. The browser layer
// (src/browser/) knows nothing of domains or transports (the CDP proxy, src/cdp-proxy/, is one): it
// is handed the ports it needs.
const transports = "^src/(rest|graphql|live-view|cluster|mcp|cdp-proxy)/";
// The composition root: main, app, deps, upgrade and front-door, and the parts split off them by
// concern (app-graphql.ts, deps-browsers.ts, …), which know concrete transports just as they do.
const compositionRoot = "^src/(app|deps|upgrade|front-door|main)(\\.ts|-[a-z0-9-]+\\.ts)$";
module.exports = {
  forbidden: [
    { name: "no-circular", severity: "error", comment: "Import cycles make the layers meaningless.", from: { path: "^src/" }, to: { circular: true } },
    {
      name: "transports-are-independent",
      severity: "error",
      comment: "REST, GraphQL, MCP, the live view, the CDP proxy and the cluster's internal API are adapters: each calls services, never another transport.",
      from: { path: transports },
      to: { path: transports, pathNot: "^src/$1/" },
    },
    {
      name: "domains-know-no-transport",
      severity: "error",
      comment: "Services return domain objects; wire shapes live in the transports.",
      from: { path: "^src/(services|kernel)/" },
      to: { path: `${transports}|${compositionRoot}` },
    },
    {
      name: "kernel-knows-no-domain",
      severity: "error",
      comment: "The kernel sits below every domain; it may know the infrastructure beneath it (auth primitives, the browser layer, the database).",
      from: { path: "^src/kernel/" },
      to: { path: "^src/services/" },
    },
    {
      name: "auth-knows-no-domain",
      severity: "error",
      comment: "src/auth holds key and token primitives beneath the kernel; the domains use them, never the other way round.",
      from: { path: "^src/auth/" },
      to: { path: `${transports}|^src/services/` },
    },
    {
      name: "peers-know-no-domain",
      severity: "error",
      comment: "src/peers signs, seals and sends node-to-node calls beneath the services (placement's port is one): it knows no domain, transport or kernel.",
      from: { path: "^src/peers/" },
      to: { path: `${transports}|^src/(services|kernel|auth|browser)/|${compositionRoot}` },
    },
    {
      name: "browser-knows-no-domain",
      severity: "error",
      comment: "src/browser drives Chromium; it is given ports, never domain services or transports.",
      from: { path: "^src/browser/" },
      to: { path: `${transports}|^src/(services|auth)/|${compositionRoot}|^src/metrics\\.ts$` },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^src/(generated|dashboard)/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default"], extensions: [".ts", ".js"] },
  },
};
