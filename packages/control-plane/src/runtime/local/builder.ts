import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { Revision } from "../../domain/types.js";
import { type RevisionJob, RuntimeFailure } from "../types.js";
import { ArchiveRejectedError, extractSourceArchive } from "./archive.js";
import { buildKey } from "./build-key.js";
import { type CommandResult, detectInstallCommand, runCommand, runProgram } from "./commands.js";
import { checkoutRef, remoteRefSha } from "./git.js";
import type { WorkspaceIsolation } from "./isolation.js";
import { buildPaths, type DeploymentLayout } from "./layout.js";
import { checkGraphConfig, fingerprint, isInside, nearestPackageDir, provideEnvFile } from "./source-tree.js";
import type { TemplateCatalog } from "./templates.js";

/** What the builder needs from its surroundings. */
export interface BuilderOptions {
  objectsDir: string;
  /** Environment of install and build commands (inherited base only, no control-plane secrets). */
  env: Record<string, string>;
  buildTimeoutMs: number;
  archiveLimits: { maxBytes: number; maxEntries: number; maxDepth: number };
  /** Projects bundled with Berth for internal_template deployments. */
  templates: TemplateCatalog;
  /** Why a repository URL may not be cloned (file:// only inside configured git hosts), or null. */
  repoUrlProblem(url: string, integrationId: string | null): string | null;
  /** Whether an http(s) repository URL is on a configured git host (private addresses allowed). */
  repoUrlTrusted(url: string, integrationId: string | null): boolean;
  /** Who install and build commands run as, and in which sandbox. */
  isolation: WorkspaceIsolation;
  /**
   * The agent server program (`[node, berth.js, "dev"]`): the build ends by importing every graph
   * with it (`--check`), so a graph that does not load fails the build, not the deploy.
   */
  agentCommand?: readonly string[];
}

/** A finished build on disk. */
export interface BuiltRevision {
  key: string;
  dir: string;
  graphConfigPath: string;
  commitSha: string | null;
}

/** What `build.json` records, so a later revision (or a restart) reuses the build. */
interface BuildMarker {
  key: string;
  graph_config_path: string;
  commit_sha: string | null;
  revision_id: string;
  finished_at: string;
}

/**
 * Fetches a revision's source (upload, git or template) into a fresh directory, installs and builds
 * it, and publishes it atomically under its build key. A build with the same key is reused.
 */
export class Builder {
  constructor(private readonly options: BuilderOptions) {}

  /** Builds the revision (or finds its build). */
  async build(job: RevisionJob, layout: DeploymentLayout): Promise<BuiltRevision> {
    const { revision, deployment, log } = job;
    if (revision.source === "repo_host") {
      const url = deployment.source_config.repo_url ?? "";
      const problem = this.options.repoUrlProblem(url, deployment.source_config.integration_id);
      if (problem) throw new RuntimeFailure(problem, "build");
      const ref = revision.source_revision_config.repo_ref;
      log("build", "INFO", `Resolving ${ref ?? "the default branch"} of ${url}`);
      const trusted = (u: string) => this.options.repoUrlTrusted(u, deployment.source_config.integration_id);
      const sha = await remoteRefSha({ url, ref, timeoutMs: 60_000, trusted }).catch((error: unknown) => {
        throw new RuntimeFailure(`Could not read the repository: ${(error as Error).message}`, "build");
      });
      if (sha === null)
        throw new RuntimeFailure(`The ref ${ref ?? "HEAD"} does not exist in ${url}.`, "build");
      const found = this.find(layout, buildKey(revision, sha));
      if (found) return this.reused(job, found);
    } else {
      const found = this.find(layout, buildKey(revision, this.sourceId(revision, job)));
      if (found) return this.reused(job, found);
    }
    return this.fresh(job, layout);
  }

  /** The finished build of a revision that was built before (deploy, restart), if still on disk. */
  locate(job: RevisionJob, layout: DeploymentLayout): BuiltRevision | undefined {
    const { revision } = job;
    const sourceId =
      revision.source === "repo_host"
        ? revision.source_revision_config.repo_commit_sha
        : this.sourceId(revision, job);
    return sourceId ? this.find(layout, buildKey(revision, sourceId)) : undefined;
  }

  /** The source identity of non-git sources (git uses the commit). */
  private sourceId(revision: Revision, job: RevisionJob): string {
    if (revision.source === "internal_source")
      return revision.source_revision_config.source_tarball_path ?? "";
    if (revision.source === "internal_template") {
      const template = this.options.templates.find(job.deployment.source_config.template_id ?? "");
      return template ? `${template.id}:${fingerprint(template.directory)}` : "";
    }
    return "";
  }

  private find(layout: DeploymentLayout, key: string): BuiltRevision | undefined {
    const paths = buildPaths(layout, key);
    try {
      const marker = JSON.parse(fs.readFileSync(paths.marker, "utf8")) as BuildMarker;
      return {
        key,
        dir: paths.dir,
        graphConfigPath: path.join(paths.dir, marker.graph_config_path),
        commitSha: marker.commit_sha,
      };
    } catch {
      return undefined;
    }
  }

  private reused(job: RevisionJob, build: BuiltRevision): BuiltRevision {
    job.log(
      "build",
      "INFO",
      `Reusing build ${build.key}: an earlier revision had the same source and build commands.`,
    );
    return build;
  }

  private async fresh(job: RevisionJob, layout: DeploymentLayout): Promise<BuiltRevision> {
    const { revision, deployment, log, signal } = job;
    const isolation = this.options.isolation;
    const identity = isolation.identity(deployment.tenant_id);
    isolation.prepare(layout, identity);
    const name = `.tmp-${revision.id}-${randomBytes(4).toString("hex")}`;
    // Fetched into a directory only the control plane can enter, handed to the workspace's user,
    // then moved where its commands run: its processes cannot swap paths under the chown walk.
    const staging = path.join(layout.root, name);
    const work = path.join(layout.builds, name);
    let src = path.join(staging, "src");
    let cloned: string | null = null;
    try {
      fs.mkdirSync(staging, { mode: 0o700 });
      fs.mkdirSync(src);
      let commitSha: string | null = null;
      let graphConfigPath = revision.source_revision_config.graph_config_path;
      let sourceId: string;
      switch (revision.source) {
        case "internal_source": {
          const objectPath = revision.source_revision_config.source_tarball_path;
          if (!objectPath) throw new RuntimeFailure("The revision names no source tarball.", "build");
          log("build", "INFO", `Extracting the uploaded source ${objectPath}`);
          const archive = path.join(this.options.objectsDir, objectPath);
          if (!fs.existsSync(archive)) throw new RuntimeFailure(`The upload ${objectPath} is gone.`, "build");
          try {
            const { entries, bytes } = await extractSourceArchive(archive, src, this.options.archiveLimits);
            log("build", "INFO", `Extracted ${entries} entries (${formatBytes(bytes)})`);
          } catch (error) {
            if (error instanceof ArchiveRejectedError) {
              throw new RuntimeFailure(`The source archive was rejected: ${error.message}`, "build");
            }
            throw error;
          }
          sourceId = objectPath;
          break;
        }
        case "repo_host": {
          const url = deployment.source_config.repo_url ?? "";
          const ref = revision.source_revision_config.repo_ref;
          log("build", "INFO", `Cloning ${url} at ${ref ?? "the default branch"}`);
          const result = await checkoutRef({
            url,
            ref,
            destDir: src,
            timeoutMs: this.options.buildTimeoutMs,
            trusted: (u) => this.options.repoUrlTrusted(u, deployment.source_config.integration_id),
            onLine: (line) => log("build", "INFO", line),
          }).catch((error: unknown) => {
            throw new RuntimeFailure(`git clone failed: ${(error as Error).message}`, "build");
          });
          commitSha = result.commitSha;
          cloned = commitSha;
          log("build", "INFO", `Checked out commit ${commitSha}`);
          sourceId = commitSha;
          break;
        }
        case "internal_template": {
          const id = deployment.source_config.template_id ?? "";
          const template = this.options.templates.find(id);
          if (!template)
            throw new RuntimeFailure(`Unknown template "${id}" (GET /v2/templates lists them).`, "build");
          log(
            "build",
            "INFO",
            `Copying template ${template.id}; its dependencies ship with Berth (linked, not installed)`,
          );
          this.options.templates.copy(template.id, src);
          graphConfigPath ??= template.graph_config_path;
          sourceId = `${template.id}:${fingerprint(template.directory)}`;
          break;
        }
        default:
          throw new RuntimeFailure(`Source ${revision.source} is not built by this runtime.`, "build");
      }
      if (!graphConfigPath) throw new RuntimeFailure("The revision names no graph_config_path.", "build");
      let configFile = path.resolve(src, graphConfigPath);
      if (!configFile.startsWith(src + path.sep) || !isInside(configFile, src)) {
        throw new RuntimeFailure(`The graph configuration ${graphConfigPath} is not in the source.`, "build");
      }
      const graphConfig = checkGraphConfig(configFile, graphConfigPath);
      provideEnvFile(job, src, path.dirname(configFile), graphConfig.env);
      // Everything fetched so far was written by the control plane: the workspace's user owns it now.
      isolation.own(staging, identity);
      fs.renameSync(staging, work);
      configFile = path.join(work, path.relative(staging, configFile));
      src = path.join(work, "src");
      log("build", "INFO", `Commands run ${isolation.describe(identity)}.`);
      await this.seedHome(job);
      if (revision.source !== "internal_template" || revision.install_command) {
        await this.install(job, src, path.dirname(configFile));
      }
      if (revision.build_command) {
        await this.run(job, "build", revision.build_command, path.dirname(configFile));
      }
      await this.checkGraphs(job, configFile);
      signal.throwIfAborted();
      const key = buildKey(revision, sourceId);
      const marker: BuildMarker = {
        key,
        graph_config_path: path.relative(work, configFile),
        commit_sha: commitSha,
        revision_id: revision.id,
        finished_at: new Date().toISOString(),
      };
      // The workspace's commands could have left a link named build.json: never written through.
      const markerFile = path.join(work, "build.json");
      fs.rmSync(markerFile, { force: true });
      fs.writeFileSync(markerFile, `${JSON.stringify(marker, null, 2)}\n`, { flag: "wx" });
      const paths = buildPaths(layout, key);
      if (fs.existsSync(paths.marker)) {
        isolation.remove(work, identity);
      } else {
        isolation.remove(paths.dir, identity);
        fs.renameSync(work, paths.dir);
      }
      log("build", "INFO", `Build ${key} finished`);
      return this.find(layout, key) ?? fail(`Build ${key} vanished after it finished.`);
    } catch (error) {
      // A failed build of a known commit still records it (build_on_push must not retry it).
      if (error instanceof RuntimeFailure && cloned) error.commitSha = cloned;
      throw error;
    } finally {
      fs.rmSync(staging, { recursive: true, force: true });
      isolation.remove(work, identity);
    }
  }

  /** Seeds a sandboxed workspace's private npm cache before its first commands (once; seconds for a large cache). */
  private async seedHome(job: RevisionJob): Promise<void> {
    const started = Date.now();
    const seeded = await this.options.isolation.seedHome(job.deployment.tenant_id);
    if (!seeded) return;
    const took = ((Date.now() - started) / 1000).toFixed(1);
    job.log(
      "build",
      "INFO",
      `Seeded the workspace's npm cache from the operator's: ${seeded.files} files (${formatBytes(seeded.bytes)}) in ${took} s.`,
    );
  }

  /** Runs the install command: the user's at the source root, else one detected from the lock file. */
  private async install(job: RevisionJob, root: string, configDir: string): Promise<void> {
    const own = job.revision.install_command;
    if (own) return this.run(job, "install", own, root);
    const dir = nearestPackageDir(configDir, root);
    if (!dir) {
      job.log("build", "INFO", "No package.json in the source: nothing to install.");
      return;
    }
    await this.run(job, "install", detectInstallCommand(dir), dir);
  }

  private async run(job: RevisionJob, step: string, commandLine: string, cwd: string): Promise<void> {
    job.log("build", "INFO", `$ ${commandLine}`);
    const started = Date.now();
    const result = await runCommand(
      commandLine,
      this.commandOptions(job, cwd, (stream) => (stream === "stderr" ? "WARNING" : "INFO")),
    );
    this.settle(job, step, result);
    job.log("build", "INFO", `${step} finished in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }

  /**
   * Imports every graph as the agent server will (same program, user and sandbox, no secrets, as
   * the official image build does), so a syntax error, a missing export or a missing dependency is
   * a BUILD_FAILED with its reason in the build log.
   */
  private async checkGraphs(job: RevisionJob, configFile: string): Promise<void> {
    const [program, ...prefix] = this.options.agentCommand ?? [];
    if (!program) return;
    job.log("build", "INFO", "Checking that every graph loads; reading their TypeScript types");
    const result = await runProgram(
      program,
      // The graphs' TypeScript types are parsed now, into the build directory, where the revision's
      // server finds them: /schemas answers at once from its start (issue 29).
      [...prefix, "--config", configFile, "--check", "--cache-schemas"],
      this.commandOptions(job, path.dirname(configFile), (stream, line) =>
        line.startsWith("ERROR ") ? "ERROR" : stream === "stderr" ? "WARNING" : "INFO",
      ),
    );
    if (result.exitCode !== 0 && !result.timedOut && !job.signal.aborted) {
      throw new RuntimeFailure("A graph does not load (see the ERROR lines above).", "build");
    }
    this.settle(job, "graph check", result);
  }

  private commandOptions(
    job: RevisionJob,
    cwd: string,
    level: (stream: "stdout" | "stderr", line: string) => "INFO" | "WARNING" | "ERROR",
  ) {
    const { isolation } = this.options;
    const workspace = isolation.workspace(job.deployment.tenant_id);
    // The whole temporary build directory (source and its parent) is the command's to write.
    const work = workDirOf(cwd);
    return {
      cwd,
      env: { ...this.options.env, ...isolation.environment(workspace) },
      launch: (command: string, args: string[]) =>
        isolation.launch(command, args, workspace, {
          writable: [work],
          readable: [],
          dieWithParent: true,
          cwd,
        }),
      timeoutMs: this.options.buildTimeoutMs,
      signal: job.signal,
      onLine: (stream: "stdout" | "stderr", line: string) => job.log("build", level(stream, line), line),
    };
  }

  /** Turns a command's end into a failure of its step (timeout, exit code, signal). */
  private settle(job: RevisionJob, step: string, result: CommandResult): void {
    job.signal.throwIfAborted();
    if (result.timedOut) {
      throw new RuntimeFailure(
        `The ${step} command timed out after ${Math.round(this.options.buildTimeoutMs / 1000)} s.`,
        "build",
      );
    }
    if (result.exitCode !== 0) {
      const how = result.exitCode === null ? `signal ${result.signal}` : `exit code ${result.exitCode}`;
      throw new RuntimeFailure(`The ${step} command failed with ${how}.`, "build");
    }
  }
}

/** The temporary build directory (`builds/.tmp-…`) holding `dir`. */
function workDirOf(dir: string): string {
  for (let current = dir; current !== path.dirname(current); current = path.dirname(current)) {
    if (path.basename(current).startsWith(".tmp-")) return current;
  }
  return dir;
}

function fail(message: string): never {
  throw new RuntimeFailure(message, "build");
}

function formatBytes(bytes: number): string {
  return bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
