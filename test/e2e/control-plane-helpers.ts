// Helpers for tests that drive `berth up` with its local runtime over HTTP.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { isSettledStatus } from "@berth-platform/control-plane";
import {
  makeTempDir,
  packDirectory,
  repoRoot,
  type SpawnedServer,
  spawnBerth,
} from "@berth-platform/testkit";

/** The project the runtime tests deploy (an echo graph reporting GREETING and its revision id). */
export const RUNTIME_PROJECT = path.join(repoRoot, "test/fixtures/runtime-project");

/**
 * An install command that links Berth's own dependencies instead of downloading them, so these
 * tests do not depend on the registry (the real install path is covered by the deploy tests).
 */
export const LINK_INSTALL = `ln -s '${path.join(repoRoot, "node_modules")}' node_modules`;

/** JSON of a response (undefined for an empty body). */
export interface ApiResult {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: test code reads arbitrary response fields
  json: any;
}

/** One `berth up` with its data dir, API key and typed-enough helpers. */
export class ControlPlaneUnderTest {
  server: SpawnedServer | undefined;
  readonly temp = makeTempDir("berth-up-");
  readonly dataDir = path.join(this.temp.dir, "data");

  constructor(
    readonly key: string,
    private readonly args: string[] = [],
    private readonly env: Record<string, string> = {},
  ) {}

  get url(): string {
    if (!this.server) throw new Error("berth up is not running");
    return this.server.url;
  }

  async start(extra: string[] = []): Promise<void> {
    this.server = await spawnBerth(
      ["up", "--port", "0", "--data-dir", this.dataDir, "--api-key", this.key, ...this.args, ...extra],
      { env: { BERTH_DRAIN_SECS: "5", ...this.env } },
    );
  }

  async stop(signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
    await this.server?.stop(signal);
    this.server = undefined;
  }

  async api(method: string, url: string, body?: unknown): Promise<ApiResult> {
    const res = await fetch(`${this.url}${url}`, {
      method,
      headers: {
        "X-Api-Key": this.key,
        ...(body === undefined ? {} : { "Content-Type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, json: text ? JSON.parse(text) : undefined };
  }

  /** GET that must answer 200; its JSON. */
  async get(url: string): Promise<ApiResult["json"]> {
    const res = await this.api("GET", url);
    assert.equal(res.status, 200, `GET ${url}: ${JSON.stringify(res.json)}`);
    return res.json;
  }

  /** Uploads an archive for the deployment and returns its object path. */
  async upload(deploymentId: string, archive: Buffer): Promise<string> {
    const minted = await this.api("POST", `/v2/deployments/${deploymentId}/upload-url`);
    assert.equal(minted.status, 200, JSON.stringify(minted.json));
    const put = await fetch(minted.json.upload_url, {
      method: "PUT",
      headers: { "Content-Type": "application/gzip" },
      body: archive,
    });
    assert.equal(put.status, 200, await put.text());
    return minted.json.object_path as string;
  }

  /**
   * Creates an internal_source deployment of `dir` (default: the runtime fixture), uploaded and
   * patched in like the official CLI does; returns the deployment after the PATCH.
   */
  async deploySource(
    name: string,
    options: {
      dir?: string;
      archive?: Buffer;
      graphConfig?: string;
      secrets?: Array<{ name: string; value: string }>;
      installCommand?: string | null;
      buildCommand?: string;
    } = {},
  ): Promise<ApiResult["json"]> {
    const created = await this.api("POST", "/v2/deployments", {
      name,
      source: "internal_source",
      source_config: {
        install_command: options.installCommand === undefined ? LINK_INSTALL : options.installCommand,
        ...(options.buildCommand ? { build_command: options.buildCommand } : {}),
      },
      source_revision_config: {},
      secrets: options.secrets ?? [],
    });
    assert.equal(created.status, 201, JSON.stringify(created.json));
    const objectPath = await this.upload(
      created.json.id,
      options.archive ?? packDirectory(options.dir ?? RUNTIME_PROJECT),
    );
    const patched = await this.api("PATCH", `/v2/deployments/${created.json.id}`, {
      source_revision_config: {
        source_tarball_path: objectPath,
        graph_config_path: options.graphConfig ?? "graph.json",
      },
    });
    assert.equal(patched.status, 200, JSON.stringify(patched.json));
    return patched.json;
  }

  async revision(deploymentId: string, revisionId: string): Promise<ApiResult["json"]> {
    const res = await this.api("GET", `/v2/deployments/${deploymentId}/revisions/${revisionId}`);
    assert.equal(res.status, 200, JSON.stringify(res.json));
    return res.json;
  }

  /** Polls a revision until its status is one of `statuses` (default: settled); fails with its logs. */
  async waitFor(
    deploymentId: string,
    revisionId: string,
    statuses?: string[],
    timeoutMs = 90_000,
  ): Promise<ApiResult["json"]> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const revision = await this.revision(deploymentId, revisionId);
      const wanted = statuses ? statuses.includes(revision.status) : isSettledStatus(revision.status);
      if (wanted) return revision;
      if (Date.now() > until || isSettledStatus(revision.status)) {
        const logs = await this.logText(deploymentId, revisionId);
        const expected = statuses?.join("|") ?? "a settled status";
        assert.fail(`revision ${revisionId} is ${revision.status}, expected ${expected}\n${logs}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Build and deploy log lines of a revision, as text. */
  async logText(deploymentId: string, revisionId: string, type?: "build" | "deploy"): Promise<string> {
    const lines: string[] = [];
    for (const t of type ? [type] : (["build", "deploy"] as const)) {
      const res = await this.api(
        "GET",
        `/v2/deployments/${deploymentId}/revisions/${revisionId}/logs?type=${t}&limit=1000`,
      );
      for (const entry of res.json?.logs ?? []) lines.push(`[${t}] ${entry.level} ${entry.message}`);
    }
    return lines.join("\n");
  }

  /** The runtime's record of what serves a deployment (pid, port, revision). */
  runtimeState(deploymentId: string): { revision_id: string; pid: number; port: number } {
    return JSON.parse(
      fs.readFileSync(path.join(this.dataDir, "deployments", deploymentId, "runtime.json"), "utf8"),
    );
  }

  cleanup(): void {
    this.temp.cleanup();
  }
}

/** Whether a process exists. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits until `check` holds (polling), failing with `what` after `timeoutMs`. */
export async function eventually(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000) {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) assert.fail(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
