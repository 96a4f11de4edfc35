import { defineConfig } from "vite";

// Preact through the automatic JSX runtime; no framework plugin needed (no fast refresh in dev).
export default defineConfig({
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2022",
    // One small app: a single chunk keeps the first load to two requests (HTML + JS + CSS).
    modulePreload: false,
    reportCompressedSize: false,
  },
  server: {
    // `npm run dev -w packages/dashboard` against a running `berth up` (default port).
    proxy: Object.fromEntries(
      ["/v1", "/v2", "/api", "/agents", "/openapi.json"].map((p) => [p, "http://127.0.0.1:8124"]),
    ),
  },
});
