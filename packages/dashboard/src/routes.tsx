// The route table: one entry per page. A new page (e.g. tracing) adds a pattern here and, for a new
// top-level path, to `pagePatterns` in ../index.js so the server answers it with the app.
import type { JSX } from "preact";
import { CreateDeployment } from "./pages/create-deployment.js";
import { DeploymentPage } from "./pages/deployment.js";
import { DeploymentsList } from "./pages/deployments.js";
import { NotFound } from "./pages/not-found.js";
import { RunLink } from "./pages/run-link.js";
import { StatusLink } from "./pages/status-link.js";
import { TracingProjectPage, TracingProjectsList } from "./pages/tracing-projects.js";
import { matchPath } from "./router.js";

interface Route {
  pattern: string;
  render(params: Record<string, string>): JSX.Element;
}

const ROUTES: Route[] = [
  { pattern: "/", render: () => <DeploymentsList /> },
  { pattern: "/deployments", render: () => <DeploymentsList /> },
  { pattern: "/deployments/new", render: () => <CreateDeployment /> },
  {
    pattern: "/deployments/:id/:tab?",
    render: (p) => <DeploymentPage id={p.id ?? ""} tab={p.tab ?? "overview"} />,
  },
  { pattern: "/tracing-projects", render: () => <TracingProjectsList /> },
  { pattern: "/tracing-projects/:id", render: (p) => <TracingProjectPage id={p.id ?? ""} /> },
  // A run as LangSmith's app_path names it (the langsmith SDK's getRunUrl).
  {
    pattern: "/o/:tenant/projects/p/:project/r/:run",
    render: (p) => <RunLink tenant={p.tenant ?? ""} project={p.project ?? ""} run={p.run ?? ""} />,
  },
  // The official CLI's status link (`langgraph deploy` prints it).
  {
    pattern: "/o/:tenant/host/deployments/:id",
    render: (p) => <StatusLink tenant={p.tenant ?? ""} id={p.id ?? ""} />,
  },
];

/** The page for a path (a not-found page when nothing matches). */
export function routeFor(path: string): { render(): JSX.Element } {
  for (const route of ROUTES) {
    const params = matchPath(route.pattern, path);
    if (params) return { render: () => route.render(params) };
  }
  return { render: () => <NotFound /> };
}
