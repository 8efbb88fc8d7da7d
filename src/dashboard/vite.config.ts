import path from "node:path";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

// The dashboard is built into dist/dashboard and served by the API server at /dashboard/ (same
// origin, so its GraphQL calls carry the sign-in cookie and the CSP can stay 'self' only).
export default defineConfig({
  root: import.meta.dirname,
  base: "/dashboard/",
  plugins: [react()],
  resolve: { alias: { "@gql": path.resolve(import.meta.dirname, "../generated/gql") } },
  build: {
    outDir: path.resolve(import.meta.dirname, "../../dist/dashboard"),
    emptyOutDir: true,
    sourcemap: true,
    // No inline scripts or styles: the CSP forbids them.
    assetsInlineLimit: 0,
  },
  logLevel: "warn",
});
