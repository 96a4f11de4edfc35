// The built dashboard for the control plane to serve (see README.md of this package).
import { fileURLToPath } from "node:url";

/** Absolute path of the built app (index.html and assets/), written by `npm run build`. */
export const dashboardDir = fileURLToPath(new URL("./dist/", import.meta.url));

/**
 * URL patterns the single-page app renders (the server answers index.html for them). A new page
 * under a new top-level path adds its pattern here.
 */
export const pagePatterns = [
  "/",
  "/deployments",
  "/deployments/*",
  "/tracing-projects",
  "/tracing-projects/*",
  "/o/*",
  "/settings",
];
