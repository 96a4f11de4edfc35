/** Options of `berth build`: Node base image, config file, and the packed Berth CLI tarball. */
export type DockerfileOptions = { nodeVersion?: string; configFile?: string; cliTarball?: string };

/**
 * The Dockerfile of a Berth agent server image for a graph project (what `berth build` writes):
 * the project's own dependencies from its lockfile, the Berth CLI from a tarball packed into the
 * build context (the CLI is not published to a registry), `berth serve` on 0.0.0.0:8000 (JSON logs,
 * SIGTERM drain; its role, database and Redis come from BERTH_ROLE, DATABASE_URI and REDIS_URI,
 * which the rendered Deployments set), and /ok as the health check.
 */
export function renderDockerfile(options: DockerfileOptions = {}): string {
  const node = options.nodeVersion ?? "20";
  const config = options.configFile ?? "langgraph.json";
  const cli = options.cliTarball ?? ".berth/berth-cli.tgz";
  return [
    `FROM node:${node}-bookworm-slim`,
    "WORKDIR /deps/project",
    "COPY package*.json ./",
    "RUN npm ci --no-audit --no-fund",
    "COPY . .",
    `RUN npm install --global --no-audit --no-fund ./${cli}`,
    "ENV PORT=8000",
    "EXPOSE 8000",
    'HEALTHCHECK CMD ["node", "-e", "fetch(\'http://127.0.0.1:8000/ok\').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]',
    `CMD ["berth", "serve", "--config", "${config}", "--host", "0.0.0.0", "--port", "8000"]`,
    "",
  ].join("\n");
}
