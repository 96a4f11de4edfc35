import type { Logger } from "pino";
import { isTerminal, type RevisionStatus } from "../domain/revision-status.js";
import type { Deployment, Revision } from "../domain/types.js";
import { fullRef, remoteRefSha } from "../runtime/local/git.js";
import type { ControlPlaneStorage } from "../storage/types.js";
import type { IntegrationService } from "./integrations.js";
import type { RevisionService } from "./revisions.js";

/** The first build-log line of a revision created by a push; it also records the commit (see triggeredBy). */
const TRIGGER_PREFIX = "Triggered by a push to ";
const TRIGGER_LINE = /^Triggered by a push to .+ \(([0-9a-f]{7,40})\)$/;
/** Git's usual abbreviation; the log line is for people, the comparison takes it as a prefix. */
const SHORT_SHA = 7;

/** What a push notification names: the repository (any of its URLs) and the pushed ref. */
export interface PushFilter {
  repoUrls: readonly string[];
  /** The pushed ref, e.g. `refs/heads/main`. */
  ref: string;
  /** The repository's default branch when the notification says (matches deployments without a ref). */
  defaultBranch?: string | null | undefined;
}

/** Reads the commit a ref points at (`git ls-remote`); replaceable in tests. */
export type RefLookup = (options: {
  url: string;
  ref: string | null;
  timeoutMs: number;
  /** URLs on configured git hosts, which may be internal. */
  trusted?: (url: string) => boolean;
}) => Promise<string | null>;

/** What PushWatcher needs. */
export interface PushWatcherOptions {
  storage: ControlPlaneStorage;
  revisions: RevisionService;
  integrations: IntegrationService;
  logger: Logger;
  /** Time limit of one `git ls-remote` (default 30 s). */
  gitTimeoutMs?: number;
  /** Least time between two webhook-triggered checks of one deployment (default 2 s). */
  hookSpacingMs?: number;
  lookup?: RefLookup;
}

/**
 * The branch a deployment follows for build_on_push, as a full ref (`refs/heads/main`, or `HEAD`
 * for a deployment without a ref, which builds the default branch), or null when it follows none:
 * not READY, not repo_host, build_on_push not true, or a ref that is not a branch (tags never move).
 */
export function watchedRef(deployment: Deployment): string | null {
  const sc = deployment.source_config;
  if (deployment.status !== "READY" || deployment.source !== "repo_host") return null;
  if (sc.build_on_push !== true || !sc.repo_url) return null;
  const ref = fullRef(deployment.source_revision_config.repo_ref);
  return ref === "HEAD" || ref.startsWith("refs/heads/") ? ref : null;
}

/**
 * A repository URL reduced to what identifies it across spellings: host and path without scheme,
 * credentials, trailing slashes or `.git` (`git@host:o/r.git`, `https://host/o/r/` → `host/o/r`);
 * lower case. Only used to decide which deployments a push notification is about.
 */
export function repoKey(url: string): string {
  const text = url.trim();
  let key = text;
  const scp = /^[\w.-]+@([\w.-]+):(?!\/\/)(.*)$/.exec(text);
  if (scp) {
    key = `${scp[1]}/${scp[2]}`;
  } else if (text.startsWith("/")) {
    key = `file://${text}`;
  } else {
    try {
      const parsed = new URL(text);
      key =
        parsed.protocol === "file:"
          ? `file://${decodeURIComponent(parsed.pathname)}`
          : `${parsed.host}${decodeURIComponent(parsed.pathname)}`;
    } catch {
      // Not a URL: compared as written.
    }
  }
  for (;;) {
    const trimmed = key.replace(/\/+$/, "").replace(/\.git$/i, "");
    if (trimmed === key) break;
    key = trimmed;
  }
  return key.toLowerCase();
}

/** Whether two commits are the same, one of them possibly abbreviated (at least 7 characters). */
export function sameCommit(a: string, b: string): boolean {
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  return short.length >= SHORT_SHA && long.startsWith(short);
}

/**
 * What a branch at `remoteSha` means for a deployment whose latest revision has `status` and is
 * known to be about `knownSha` (built from it, or created for a push of it):
 * - `up-to-date`: same commit, nothing to do;
 * - `build`: the branch moved (or the latest revision ended without ever knowing its commit);
 * - `pending`: the latest revision has not resolved its commit yet and will build the branch as it
 *   is when it starts (or record what it built, which the next check compares), so a second
 *   revision for the same push would be a duplicate.
 */
export function pushDecision(
  status: RevisionStatus,
  knownSha: string | null,
  remoteSha: string,
): "up-to-date" | "build" | "pending" {
  if (knownSha) return sameCommit(knownSha, remoteSha) ? "up-to-date" : "build";
  return isTerminal(status) ? "build" : "pending";
}

/** The log line of a revision created for a push (`Triggered by a push to main (abc1234)`). */
export function triggerLine(ref: string, sha: string): string {
  return `${TRIGGER_PREFIX}${branchName(ref)} (${sha.slice(0, SHORT_SHA)})`;
}

function branchName(ref: string): string {
  return ref === "HEAD" ? "the default branch" : ref.replace(/^refs\/heads\//, "");
}

function matchesRef(watched: string, filter: PushFilter): boolean {
  if (watched !== "HEAD") return watched === filter.ref;
  // A deployment without a ref builds the default branch; when the notification does not say which
  // branch that is, ring anyway: the check reads HEAD itself.
  return !filter.defaultBranch || filter.ref === `refs/heads/${filter.defaultBranch}`;
}

interface Pending {
  tenantId: string;
  done: Promise<void>;
  resolve(): void;
}

interface Spacing {
  last: number;
  timer: NodeJS.Timeout | null;
  /** Resolves once the check a delayed ring scheduled has run (or the watcher stopped). */
  fired: Promise<void> | null;
  fire(): void;
}

/** Credentials in a URL (`https://user:token@host/…`) never reach the logs. */
function redact(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/@\s]*@/gi, "$1");
}

/**
 * build_on_push: for each READY repo_host deployment that follows a branch, reads the branch's
 * commit (`git ls-remote`) and, when it moved past the latest revision's commit, creates a new
 * revision with the latest one's inputs (storage marks older waiting revisions SKIPPED; the
 * provisioner queues the new one behind a revision that is building or deploying). Runs on a
 * timer and on demand (`check`, or `ring` from the push webhook). Checks run one at a time; a
 * deployment already waiting for a check is not queued twice.
 */
export class PushWatcher {
  readonly #pending = new Map<string, Pending>();
  readonly #spacing = new Map<string, Spacing>();
  /** Last problem reported per deployment (a broken repository is logged once, not every minute). */
  readonly #problems = new Map<string, string>();
  /** The push commit of each deployment's latest revision, once looked up (revision id → sha or null). */
  readonly #triggers = new Map<string, { revisionId: string; sha: string | null }>();
  #loop: Promise<void> | null = null;
  /** Deployment reads under way (stop waits for them: storage closes after the watcher). */
  readonly #reads = new Set<Promise<unknown>>();
  #timer: NodeJS.Timeout | null = null;
  #stopped = false;
  readonly #gitTimeoutMs: number;
  readonly #hookSpacingMs: number;
  readonly #lookup: RefLookup;

  constructor(private readonly options: PushWatcherOptions) {
    this.#gitTimeoutMs = options.gitTimeoutMs ?? 30_000;
    this.#hookSpacingMs = options.hookSpacingMs ?? 2000;
    this.#lookup = options.lookup ?? remoteRefSha;
  }

  /** Checks every watched branch now and then every `intervalMs` (0: only on demand and by webhook). */
  start(intervalMs: number): void {
    this.#stopped = false;
    if (intervalMs <= 0) return;
    this.#timer = setInterval(() => this.#poll(), intervalMs);
    this.#timer.unref();
    this.#poll();
  }

  /** Stops the timer, drops waiting checks and waits for the one under way. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    for (const spacing of this.#spacing.values()) {
      if (spacing.timer) clearTimeout(spacing.timer);
      spacing.fire();
    }
    this.#spacing.clear();
    for (const pending of this.#pending.values()) pending.resolve();
    this.#pending.clear();
    await Promise.allSettled([...this.#reads]);
    await this.#loop;
  }

  /**
   * Checks the watched deployments (those a push matches, when `filter` is given) and resolves
   * once they have been checked; returns how many were.
   */
  async check(filter?: PushFilter): Promise<number> {
    if (this.#stopped) return 0;
    const deployments = await this.#watched(filter);
    await Promise.all(deployments.map((d) => this.#enqueue(d)));
    return deployments.length;
  }

  /**
   * The webhook's doorbell: schedules checks of the deployments a push matches without waiting
   * for them (at most one per deployment every `hookSpacingMs`; later rings fold into one check
   * at the end of that time). Returns how many deployments match.
   */
  async ring(filter: PushFilter): Promise<number> {
    if (this.#stopped) return 0;
    const deployments = await this.#watched(filter);
    const now = Date.now();
    for (const [id, spacing] of this.#spacing) {
      if (!spacing.timer && now - spacing.last >= this.#hookSpacingMs) this.#spacing.delete(id);
    }
    for (const deployment of deployments) this.#ringOne(deployment, now);
    return deployments.length;
  }

  /** Resolves when no check is running, waiting or scheduled by a ring (tests). */
  async idle(): Promise<void> {
    for (;;) {
      const fired = [...this.#spacing.values()].flatMap((s) => (s.fired ? [s.fired] : []));
      if (fired.length > 0) await Promise.all(fired);
      else if (this.#loop) await this.#loop;
      else return;
    }
  }

  #poll(): void {
    this.check().catch((error: unknown) => {
      this.options.logger.error({ err: error }, "build_on_push: periodic check failed");
    });
  }

  async #watched(filter: PushFilter | undefined): Promise<Deployment[]> {
    const keys = filter ? new Set(filter.repoUrls.map(repoKey)) : null;
    const read = this.options.storage.deployments.listByStatus("READY");
    this.#reads.add(read);
    const ready = await read.finally(() => this.#reads.delete(read));
    const watched = ready.filter((d) => {
      const ref = watchedRef(d);
      if (!ref) return false;
      if (!filter || !keys) return true;
      return keys.has(repoKey(d.source_config.repo_url ?? "")) && matchesRef(ref, filter);
    });
    if (!filter) {
      // Forget what is kept about deployments that are no longer watched.
      const ids = new Set(watched.map((d) => d.id));
      for (const map of [this.#problems, this.#triggers]) {
        for (const id of map.keys()) if (!ids.has(id)) map.delete(id);
      }
    }
    return watched;
  }

  #ringOne(deployment: Deployment, now: number): void {
    const spacing = this.#spacing.get(deployment.id);
    if (spacing?.timer) return;
    const wait = spacing ? spacing.last + this.#hookSpacingMs - now : 0;
    if (wait <= 0) {
      this.#spacing.set(deployment.id, { last: now, timer: null, fired: null, fire: () => {} });
      void this.#enqueue(deployment);
      return;
    }
    let fire = () => {};
    const fired = new Promise<void>((resolve) => {
      fire = resolve;
    });
    const timer = setTimeout(() => {
      this.#spacing.set(deployment.id, { last: Date.now(), timer: null, fired: null, fire: () => {} });
      void this.#enqueue(deployment).finally(fire);
    }, wait);
    this.#spacing.set(deployment.id, { last: spacing?.last ?? now, timer, fired, fire });
  }

  /** Queues a check of the deployment (joining one that is already waiting); resolves when it ran. */
  #enqueue(deployment: Deployment): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    const waiting = this.#pending.get(deployment.id);
    if (waiting) return waiting.done;
    let resolve = () => {};
    const done = new Promise<void>((r) => {
      resolve = r;
    });
    this.#pending.set(deployment.id, { tenantId: deployment.tenant_id, done, resolve });
    this.#pump();
    return done;
  }

  #pump(): void {
    if (this.#loop || this.#stopped) return;
    this.#loop = (async () => {
      for (const [id, job] of this.#pending) {
        if (this.#stopped) break;
        this.#pending.delete(id);
        try {
          await this.#checkOne(job.tenantId, id);
        } catch (error) {
          this.options.logger.error({ err: error, deploymentId: id }, "build_on_push: check failed");
        } finally {
          job.resolve();
        }
      }
    })().finally(() => {
      this.#loop = null;
      if (this.#pending.size > 0) this.#pump();
    });
  }

  async #checkOne(tenantId: string, deploymentId: string): Promise<void> {
    const { storage, integrations, revisions, logger } = this.options;
    const deployment = await storage.deployments.get(tenantId, deploymentId);
    const ref = deployment ? watchedRef(deployment) : null;
    if (!deployment || !ref) return;
    const url = deployment.source_config.repo_url ?? "";
    const refused = integrations.repoUrlProblem(url, deployment.source_config.integration_id);
    if (refused) return this.#problem(deployment, refused);
    let sha: string | null;
    try {
      sha = await this.#lookup({
        url,
        ref: ref === "HEAD" ? null : ref,
        timeoutMs: this.#gitTimeoutMs,
        trusted: (u) => integrations.trustsUrl(u, deployment.source_config.integration_id),
      });
    } catch (error) {
      return this.#problem(
        deployment,
        `cannot read ${branchName(ref)} of ${url}: ${(error as Error).message}`,
      );
    }
    if (!sha) return this.#problem(deployment, `${url} has no branch ${branchName(ref)}`);
    const remote = sha;
    this.#problems.delete(deploymentId);
    logger.debug({ deploymentId, ref, commit: remote }, "build_on_push: branch checked");
    const created = await revisions.rebuildLatest(tenantId, deploymentId, async (current, latest) => {
      // The deployment may have changed while git was asked (build_on_push off, another ref).
      if (watchedRef(current) !== ref) return null;
      const known = latest.source_revision_config.repo_commit_sha ?? (await this.#triggeredBy(latest));
      return pushDecision(latest.status, known, remote) === "build" ? triggerLine(ref, remote) : null;
    });
    if (created) {
      this.#triggers.set(deploymentId, { revisionId: created.id, sha: remote });
      logger.info(
        { deploymentId, revisionId: created.id, ref, commit: remote },
        "build_on_push: the branch moved; new revision",
      );
    }
  }

  /**
   * The commit a revision was created for by a push, from its first build-log line (so it survives
   * a restart); null for revisions created otherwise. Remembered per deployment's latest revision.
   */
  async #triggeredBy(revision: Revision): Promise<string | null> {
    const cached = this.#triggers.get(revision.deployment_id);
    if (cached?.revisionId === revision.id) return cached.sha;
    const [line] = await this.options.storage.logs.query({
      tenantId: revision.tenant_id,
      deploymentId: revision.deployment_id,
      revisionId: revision.id,
      type: "build",
      order: "asc",
      limit: 1,
      query: TRIGGER_PREFIX,
    });
    const sha = line ? (TRIGGER_LINE.exec(line.message)?.[1] ?? null) : null;
    this.#triggers.set(revision.deployment_id, { revisionId: revision.id, sha });
    return sha;
  }

  #problem(deployment: Deployment, message: string): void {
    if (this.#problems.get(deployment.id) === message) return;
    this.#problems.set(deployment.id, message);
    this.options.logger.warn({ deploymentId: deployment.id }, `build_on_push: ${redact(message)}`);
  }
}
