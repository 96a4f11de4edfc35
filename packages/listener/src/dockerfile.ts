/** Options of `berth build`: Node base image, config file, and where the packed Berth packages are. */
export type DockerfileOptions = { nodeVersion?: string; configFile?: string; packagesDir?: string };

/** The build-context folder `berth build` packs Berth's own packages into (one .tgz each). */
export const IMAGE_PACKAGES_DIR = ".berth-image";

/**
 * The Dockerfile of a Berth agent server image for a graph project (what `berth build` writes):
 * the project's own dependencies from its lockfile; Berth from its packages packed into the build
 * context (not published to a registry), installed together into /opt/berth so they resolve each
 * other; `berth serve` on 0.0.0.0:8000 (JSON logs, SIGTERM drain; its role, database and Redis come
 * from BERTH_ROLE, DATABASE_URI and REDIS_URI, which the rendered Deployments set), and /ok as the
 * health check.
 */
export function renderDockerfile(options: DockerfileOptions = {}): string {
  const node = options.nodeVersion ?? "20";
  const config = options.configFile ?? "langgraph.json";
  const packages = options.packagesDir ?? IMAGE_PACKAGES_DIR;
  return [
    `FROM node:${node}-bookworm-slim`,
    `COPY ${packages}/ /opt/berth-packages/`,
    "RUN mkdir -p /opt/berth && cd /opt/berth && npm init -y >/dev/null \\",
    "  && npm install --omit=dev --no-audit --no-fund /opt/berth-packages/*.tgz && rm -rf /opt/berth-packages",
    "ENV PATH=/opt/berth/node_modules/.bin:$PATH",
    "WORKDIR /deps/project",
    "COPY package*.json ./",
    "RUN npm ci --no-audit --no-fund",
    "COPY . .",
    "ENV PORT=8000",
    "EXPOSE 8000",
    'HEALTHCHECK CMD ["node", "-e", "fetch(\'http://127.0.0.1:8000/ok\').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]',
    `CMD ["berth", "serve", "--config", "${config}", "--host", "0.0.0.0", "--port", "8000"]`,
    "",
  ].join("\n");
}
