import fs from "node:fs";
import path from "node:path";
import type { WorkspaceIdentity } from "./isolation.js";

/**
 * Starts a workspace user's npm cache with the operator's: index entries are copied (npm appends
 * to them), content files are hard-linked where possible (immutable, addressed by hash, left owned
 * by the operator so a workspace cannot alter what another one reads).
 */
export function seedNpmCache(from: string, to: string, identity: WorkspaceIdentity): void {
  const source = path.join(from, "_cacache");
  if (!fs.existsSync(source)) return;
  const walk = (rel: string) => {
    const src = path.join(source, rel);
    const dest = path.join(to, "_cacache", rel);
    fs.mkdirSync(dest, { recursive: true });
    for (const entry of fs.readdirSync(src, { withFileTypes: true })) {
      const childRel = path.join(rel, entry.name);
      if (entry.isDirectory()) {
        if (rel === "" && entry.name === "tmp") continue;
        walk(childRel);
      } else if (entry.isFile()) {
        const target = path.join(to, "_cacache", childRel);
        if (childRel.startsWith(`content-v2${path.sep}`)) {
          try {
            fs.linkSync(path.join(source, childRel), target);
            continue;
          } catch {
            // another file system: copy instead
          }
        }
        fs.copyFileSync(path.join(source, childRel), target);
        fs.lchownSync(target, identity.uid, identity.gid);
      }
    }
  };
  try {
    walk("");
  } catch {
    // A partial seed only means more packages come from the registry.
  }
}

/** What a copied seed holds. */
export interface SeedCopy {
  files: number;
  bytes: number;
}

/**
 * Copies the operator's npm cache to `target`, the `.npm` of a workspace that runs as the
 * operator's own uid (the sandbox without workspace users). Every file is copied (cloned where the
 * file system can), never hard-linked: a link would be the operator's own cache file and every
 * other workspace's, and this workspace could write to it. The copy is made in a fresh directory
 * under `stagingParent` (which no sandbox sees) and renamed to `target` at the end, so the control
 * plane never writes through a path the workspace could have replaced with a link. If `target`
 * exists already (the workspace wrote a cache first) or the copy fails, nothing is seeded: its
 * packages then come from the registry. Asynchronous: a large cache takes seconds to copy, and
 * the control plane keeps serving meanwhile.
 */
export async function copyNpmCache(
  from: string,
  stagingParent: string,
  target: string,
): Promise<SeedCopy | null> {
  const source = path.join(from, "_cacache");
  if (!fs.existsSync(source)) return null;
  const staging = await fs.promises.mkdtemp(path.join(stagingParent, ".npm-seed-")).catch(() => null);
  if (!staging) return null;
  const copied: SeedCopy = { files: 0, bytes: 0 };
  const walk = async (rel: string) => {
    const dest = path.join(staging, "_cacache", rel);
    await fs.promises.mkdir(dest, { recursive: true, mode: 0o700 });
    for (const entry of await fs.promises.readdir(path.join(source, rel), { withFileTypes: true })) {
      const childRel = path.join(rel, entry.name);
      if (entry.isDirectory()) {
        // npm's scratch space: half-written files of a running install.
        if (rel === "" && entry.name === "tmp") continue;
        await walk(childRel);
      } else if (entry.isFile()) {
        try {
          await fs.promises.copyFile(
            path.join(source, childRel),
            path.join(dest, entry.name),
            fs.constants.COPYFILE_FICLONE | fs.constants.COPYFILE_EXCL,
          );
        } catch (error) {
          // Gone since it was listed (the operator's npm cleaned up): one package less.
          if ((error as NodeJS.ErrnoException).code === "ENOENT") continue;
          throw error;
        }
        copied.files += 1;
        copied.bytes += (await fs.promises.stat(path.join(dest, entry.name))).size;
      }
    }
  };
  try {
    await walk("");
    await fs.promises.rename(staging, target);
    return copied;
  } catch {
    // A half-copied content file would fail npm's integrity check: no seed rather than a bad one.
    return null;
  } finally {
    await fs.promises.rm(staging, { recursive: true, force: true });
  }
}
