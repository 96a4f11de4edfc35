import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { PrivateAddressGuard } from "@berth-platform/server-kit";
import { v5 as uuidv5 } from "uuid";
import type { GitHostConfig } from "../config.js";
import { NotFoundError } from "../errors.js";

/** Namespace of integration ids: a host's id is stable across restarts. */
const INTEGRATION_NAMESPACE = "9f0c6a52-3b52-4a8e-9d3c-5c1f4b7e2a10";

/** What `/install` lists, in the real service's shape. */
export interface Integration {
  id: string;
  installation_id: number;
  name: string;
}

/** What `/repos` lists, in the real service's shape. */
export interface Repository {
  host_integration_id: string;
  id: number;
  name: string;
  owner: string;
  url: string;
  default_branch: string;
}

function numericId(text: string): number {
  return createHash("sha256").update(text).digest().readUInt32BE(0);
}

/** The branch HEAD names, read from the repository's files (bare or not). */
function defaultBranch(repoDir: string): string {
  for (const head of [path.join(repoDir, "HEAD"), path.join(repoDir, ".git", "HEAD")]) {
    try {
      const ref = fs.readFileSync(head, "utf8").match(/^ref: refs\/heads\/(.+)$/m)?.[1];
      if (ref) return ref.trim();
    } catch {
      // Not this layout.
    }
  }
  return "main";
}

function isGitRepository(dir: string): boolean {
  return (
    fs.existsSync(path.join(dir, ".git")) ||
    (fs.existsSync(path.join(dir, "HEAD")) && fs.existsSync(path.join(dir, "objects")))
  );
}

/**
 * Git hosts configured for this control plane, offered to every workspace as integrations: each
 * host is a directory of git repositories (bare or not) that deployments may clone by file URL.
 */
export class IntegrationService {
  private readonly hosts: Array<{ integration: Integration; directory?: string; url?: string }>;
  private readonly guard = new PrivateAddressGuard();

  constructor(hosts: ReadonlyArray<GitHostConfig>) {
    this.hosts = hosts.map((host) => ({
      integration: {
        id: uuidv5(host.name, INTEGRATION_NAMESPACE),
        installation_id: numericId(host.name),
        name: host.name,
      },
      ...(host.url === undefined ? { directory: host.directory } : { url: host.url }),
    }));
  }

  list(): Integration[] {
    return this.hosts.map((h) => h.integration);
  }

  /** Whether an integration id names a configured host. */
  exists(id: string): boolean {
    return this.hosts.some((h) => h.integration.id === id);
  }

  /**
   * Why a deployment may not clone `url` (null when it may): http(s) URLs are allowed; file URLs
   * and local paths only inside a configured host's directory (of the deployment's integration
   * when it names one), so a workspace cannot read arbitrary repositories of this machine.
   */
  repoUrlProblem(url: string, integrationId: string | null): string | null {
    const hosts = integrationId ? this.hosts.filter((h) => h.integration.id === integrationId) : this.hosts;
    if (integrationId && hosts.length === 0) {
      return `Integration ${integrationId} is not a configured git host (GET /v1/integrations/repo_host/install lists them).`;
    }
    if (/^https?:\/\//i.test(url)) {
      if (this.trustsUrl(url, integrationId)) return null;
      // Names are resolved and checked when fetched; a literal internal address is refused now.
      let host: string;
      try {
        host = new URL(url).hostname;
      } catch {
        return `Unsupported repository URL ${url}.`;
      }
      const refused = this.guard.refuseHost(host);
      return refused
        ? `${url} cannot be fetched: ${refused}; repositories come from public hosts, or from a git host the operator configures (BERTH_GIT_HOSTS).`
        : null;
    }
    let local: string;
    try {
      local = url.startsWith("file:") ? fileURLToPath(url) : path.resolve(url);
    } catch {
      return `Unsupported repository URL ${url} (use http(s)://, file:// or a path inside a configured git host).`;
    }
    if (!path.isAbsolute(url) && !url.startsWith("file:")) {
      return `Unsupported repository URL ${url} (use http(s)://, file:// or an absolute path).`;
    }
    const inside = hosts.some(
      (h) => h.directory !== undefined && (local === h.directory || local.startsWith(h.directory + path.sep)),
    );
    return inside
      ? null
      : `${url} is not inside a configured git host; local repositories are served from BERTH_GIT_HOSTS directories.`;
  }

  /**
   * Whether an http(s) URL lies under a configured URL git host (of the deployment's integration
   * when it names one): the operator trusts it, private addresses included.
   */
  trustsUrl(url: string, integrationId: string | null): boolean {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return false;
    }
    return this.hosts.some((h) => {
      if (h.url === undefined || (integrationId && h.integration.id !== integrationId)) return false;
      const base = new URL(h.url);
      const prefix = base.pathname.replace(/\/+$/, "");
      return (
        target.origin === base.origin &&
        (target.pathname === prefix || target.pathname.startsWith(`${prefix}/`) || prefix === "")
      );
    });
  }

  repositories(integrationId: string): Repository[] {
    const host = this.hosts.find((h) => h.integration.id === integrationId);
    if (!host) throw new NotFoundError(`Integration ${integrationId} not found.`);
    // A URL host cannot be listed (that needs the server's own API); its repositories are cloned by URL.
    const directory = host.directory;
    if (directory === undefined || !fs.existsSync(directory)) return [];
    return fs
      .readdirSync(directory, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && isGitRepository(path.join(directory, entry.name)))
      .map((entry) => {
        const dir = path.join(directory, entry.name);
        return {
          host_integration_id: integrationId,
          id: numericId(`${host.integration.name}/${entry.name}`),
          name: entry.name.replace(/\.git$/, ""),
          owner: host.integration.name,
          url: pathToFileURL(dir).href,
          default_branch: defaultBranch(dir),
        };
      })
      .sort((a, b) => a.name.localeCompare(b.name));
  }
}
