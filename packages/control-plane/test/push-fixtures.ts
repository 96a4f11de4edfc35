// Shared set-up of the build_on_push tests: local git repositories under a configured git host,
// deployments following them, and readers of their revisions and logs.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { after } from "node:test";
import { pathToFileURL } from "node:url";
import { makeTempDir } from "@berth-platform/testkit";
import type { Deployment, Revision } from "../src/domain/types.js";
import { type TestPlane, waitFor } from "./helpers.js";

export const hosts = makeTempDir("berth-push-hosts-");
after(() => hosts.cleanup());
export const GIT_HOSTS = `local=${hosts.dir}`;

export function git(dir: string, ...args: string[]): string {
  return execFileSync(
    "git",
    [
      "-C",
      dir,
      "-c",
      "user.name=Test",
      "-c",
      "user.email=test@example.com",
      "-c",
      "commit.gpgsign=false",
      ...args,
    ],
    {
      encoding: "utf8",
    },
  ).trim();
}

/** A repository inside the configured git host, with a first commit on `main`. */
export function makeRepo(name: string): { dir: string; url: string; push(message?: string): string } {
  const dir = path.join(hosts.dir, name);
  execFileSync("git", ["init", "--quiet", "--initial-branch=main", dir]);
  fs.writeFileSync(path.join(dir, "graph.json"), JSON.stringify({ graphs: {} }));
  git(dir, "add", ".");
  git(dir, "commit", "--quiet", "-m", "first");
  let n = 0;
  return {
    dir,
    url: pathToFileURL(dir).href,
    push(message = `change ${++n}`) {
      git(dir, "commit", "--quiet", "--allow-empty", "-m", message);
      return git(dir, "rev-parse", "HEAD");
    },
  };
}

export function head(dir: string): string {
  return git(dir, "rev-parse", "HEAD");
}

export type Plane = () => TestPlane;

export async function createDeployment(
  plane: Plane,
  name: string,
  repoUrl: string,
  options: { buildOnPush?: boolean; ref?: string } = {},
): Promise<Deployment> {
  const res = await plane().call({
    method: "POST",
    url: "/v2/deployments",
    payload: {
      name,
      source: "repo_host",
      source_config: { repo_url: repoUrl, build_on_push: options.buildOnPush ?? true },
      source_revision_config: { repo_ref: options.ref ?? "main", graph_config_path: "graph.json" },
      secrets: [{ name: "GREETING", value: "hello" }],
    },
  });
  assert.equal(res.statusCode, 201, res.body);
  const created = res.json<Deployment>();
  await waitFor(
    () => getDeployment(plane, created.id),
    (d) => d.status === "READY",
  );
  await waitFor(
    () => revisions(plane, created.id),
    (rs) => rs[0]?.status === "AWAITING_BUILD",
  );
  return created;
}

export async function getDeployment(plane: Plane, id: string): Promise<Deployment> {
  return (await plane().call({ method: "GET", url: `/v2/deployments/${id}` })).json<Deployment>();
}

/** Newest first. */
export async function revisions(plane: Plane, deploymentId: string): Promise<Revision[]> {
  const res = await plane().call({
    method: "GET",
    url: `/v2/deployments/${deploymentId}/revisions?limit=100`,
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json<{ resources: Revision[] }>().resources;
}

export async function buildLog(plane: Plane, deploymentId: string, revisionId: string): Promise<string[]> {
  const res = await plane().call({
    method: "GET",
    url: `/v2/deployments/${deploymentId}/revisions/${revisionId}/logs?type=build&order=asc`,
  });
  return res.json<{ logs: Array<{ message: string }> }>().logs.map((l) => l.message);
}

/** What the runtime's build step does: records the commit it built (then the revision goes on). */
export async function built(
  plane: Plane,
  revision: Revision,
  sha: string,
  status: Revision["status"] = "DEPLOYED",
) {
  const storage = plane().plane.storage;
  const now = new Date().toISOString();
  await storage.revisions.setSourceRevisionConfig(
    revision.id,
    { ...revision.source_revision_config, repo_commit_sha: sha },
    now,
  );
  assert.ok(await storage.revisions.setStatus(revision.id, revision.status, status, now));
}

export async function setStatus(plane: Plane, revision: Revision, status: Revision["status"]) {
  const now = new Date().toISOString();
  assert.ok(await plane().plane.storage.revisions.setStatus(revision.id, revision.status, status, now));
}

/** A push notification as GitHub sends it (only the fields the hook reads matter). */
export function pushPayload(repoUrl: string, ref: string, after = "0".repeat(40)) {
  return {
    ref,
    before: "1".repeat(40),
    after,
    repository: {
      clone_url: `${repoUrl}.git`,
      html_url: `${repoUrl}/`,
      url: repoUrl,
      default_branch: "main",
    },
    commits: [{ id: after, message: "change" }],
  };
}

export function checksOf(plane: Plane, deploymentId: string): number {
  return plane().logs.filter(
    (line) => line.includes("build_on_push: branch checked") && line.includes(deploymentId),
  ).length;
}
