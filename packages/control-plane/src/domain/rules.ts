import { BadRequestError } from "../errors.js";
import type { Source, SourceConfig, SourceRevisionConfig } from "./types.js";

const NAME = /^[a-z][a-z0-9-]{0,62}$/;

/** Whether text holds an ASCII control character (NUL, newlines, DEL…). */
function hasControlChar(text: string): boolean {
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

/** Deployment names: lowercase letters, digits and '-', starting with a letter, at most 63 characters. */
export function checkName(name: string): void {
  if (!NAME.test(name) || name.endsWith("-")) {
    throw new BadRequestError(
      "name must start with a lowercase letter, contain only lowercase letters, digits and '-', not end with '-', and be at most 63 characters.",
    );
  }
}

const CLOUD: readonly Source[] = ["repo_host", "internal_container", "internal_source", "internal_template"];
const BUILD_FROM_SOURCE: readonly Source[] = ["repo_host", "internal_source"];

/** Which sources each source-specific field applies to. */
const APPLIES: Readonly<Record<string, readonly Source[]>> = {
  "source_config.integration_id": ["repo_host"],
  "source_config.repo_url": ["repo_host"],
  "source_config.build_on_push": ["repo_host"],
  "source_config.deployment_type": CLOUD,
  "source_config.custom_url": ["external_container"],
  "source_config.resource_spec": ["external_container"],
  "source_config.listener_id": ["external_container"],
  "source_config.listener_config": ["external_container"],
  "source_config.install_command": BUILD_FROM_SOURCE,
  "source_config.build_command": BUILD_FROM_SOURCE,
  "source_config.template_id": ["internal_template"],
  "source_revision_config.repo_ref": ["repo_host"],
  "source_revision_config.graph_config_path": BUILD_FROM_SOURCE,
  "source_revision_config.image_uri": ["external_container", "internal_container"],
  "source_revision_config.source_tarball_path": ["internal_source"],
  secret_references: ["external_container"],
};

/** Sent fields (non-null; lists non-empty) that do not apply to `source`: 400 naming the first one. */
export function checkFieldsApply(source: Source, sent: Record<string, unknown>): void {
  for (const [field, value] of Object.entries(sent)) {
    const applies = APPLIES[field];
    if (!applies || value === null || value === undefined) continue;
    if (Array.isArray(value) && value.length === 0) continue;
    if (!applies.includes(source)) {
      throw new BadRequestError(
        `${field} does not apply to source '${source}' (only to ${applies.join(", ")}).`,
      );
    }
  }
}

/** Flattens the source-specific parts of a request into `field path → value` for checkFieldsApply. */
export function sentFields(body: {
  source_config?: Partial<Record<keyof SourceConfig, unknown>> | null | undefined;
  source_revision_config?: Partial<Record<keyof SourceRevisionConfig, unknown>> | null | undefined;
  secret_references?: unknown;
}): Record<string, unknown> {
  const out: Record<string, unknown> = { secret_references: body.secret_references };
  for (const [k, v] of Object.entries(body.source_config ?? {})) out[`source_config.${k}`] = v;
  for (const [k, v] of Object.entries(body.source_revision_config ?? {}))
    out[`source_revision_config.${k}`] = v;
  return out;
}

/** A git ref a build may check out: no option-like or traversal forms (git check-ref-format rules). */
export function checkRepoRef(ref: string): void {
  const bad =
    ref === "" ||
    ref.startsWith("-") ||
    ref.startsWith("/") ||
    ref.endsWith("/") ||
    ref.endsWith(".") ||
    ref.endsWith(".lock") ||
    ref.includes("..") ||
    ref.includes("//") ||
    ref.includes("@{") ||
    /[\s~^:?*[\\]/.test(ref) ||
    hasControlChar(ref);
  if (bad) throw new BadRequestError(`source_revision_config.repo_ref "${ref}" is not a valid git ref.`);
}

/** A relative path inside the repository or archive: no absolute paths, no '..', no backslashes. */
export function checkRelativePath(value: string, field: string): void {
  const segments = value.split("/");
  const bad =
    value === "" ||
    value.startsWith("/") ||
    value.includes("\\") ||
    hasControlChar(value) ||
    segments.some((s) => s === "..") ||
    /^[A-Za-z]:/.test(value);
  if (bad)
    throw new BadRequestError(`${field} must be a relative path inside the project (no '..', not absolute).`);
}

/** An http(s) URL (repository or custom URL). */
export function checkHttpUrl(value: string, field: string): void {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== "https:" && url.protocol !== "http:")) {
    throw new BadRequestError(`${field} must be an http(s) URL.`);
  }
}

/** A container image reference: no whitespace, not option-like. */
export function checkImageUri(value: string): void {
  if (value === "" || value.startsWith("-") || /\s/.test(value) || hasControlChar(value)) {
    throw new BadRequestError("source_revision_config.image_uri is not a valid image reference.");
  }
}

/** A tag ref cannot be built on push: pushes never move a tag. */
export function checkBuildOnPush(buildOnPush: boolean | null, repoRef: string | null): void {
  if (buildOnPush === true && repoRef?.startsWith("refs/tags/")) {
    throw new BadRequestError(
      "source_config.build_on_push cannot be true when source_revision_config.repo_ref is a tag (refs/tags/...).",
    );
  }
}
