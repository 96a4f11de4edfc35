// Create validation and PATCH semantics (reference §4.2–4.3), as pure functions.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { planCreate, type RuleContext } from "../src/domain/deployment.js";
import { planPatch } from "../src/domain/patch.js";
import { checkName } from "../src/domain/rules.js";
import { SECRET_MASK } from "../src/domain/secrets.js";
import type { Deployment } from "../src/domain/types.js";
import { BadRequestError } from "../src/errors.js";
import { DeploymentCreateRequest, DeploymentPatchRequest } from "../src/schemas/requests.js";

const ctx: RuleContext = {
  listenerExists: () => false,
  listenerIds: () => [],
  isUploadPath: (p) => p === "uploads/ok.tar.gz",
  repoUrlProblem: (url) => (/^https?:\/\//.test(url) ? null : "use an http(s) URL"),
};
let n = 0;
const stamp = {
  now: "2026-01-01T00:00:00.000Z",
  newId: () => `00000000-0000-4000-8000-${String(++n).padStart(12, "0")}`,
};

function create(body: Record<string, unknown>): Deployment {
  const request = DeploymentCreateRequest.parse({
    source_config: {},
    source_revision_config: {},
    secrets: [],
    ...body,
  });
  return planCreate(request, "tenant", ctx, stamp).deployment;
}
const rejects = (body: Record<string, unknown>, pattern: RegExp) =>
  assert.throws(
    () => create(body),
    (e: unknown) => e instanceof BadRequestError && pattern.test(e.message),
  );

const repo = {
  name: "agent",
  source: "repo_host",
  source_config: { repo_url: "https://git.example/a/b" },
  source_revision_config: { repo_ref: "main", graph_config_path: "graph.json" },
};
const external = {
  name: "ext",
  source: "external_container",
  source_config: { resource_spec: {} },
  source_revision_config: { image_uri: "img:1" },
};

describe("create rules", () => {
  it("names: lowercase letters, digits and '-', starting with a letter, ≤ 63", () => {
    for (const ok of ["a", "agent-1", "a".repeat(63)]) checkName(ok);
    for (const bad of ["", "1agent", "Agent", "my_agent", "a b", "agent-", "-a", "a".repeat(64), "ägent"]) {
      assert.throws(() => checkName(bad), BadRequestError, bad);
    }
  });

  it("graph_config_path is required for repo_host and must be null for image sources", () => {
    rejects({ ...repo, source_revision_config: { repo_ref: "main" } }, /graph_config_path is required/);
    rejects({ ...repo, source_config: {} }, /repo_url is required/);
    rejects(
      { ...external, source_revision_config: { image_uri: "i", graph_config_path: "g.json" } },
      /graph_config_path does not apply/,
    );
    rejects(
      { name: "t", source: "internal_template", source_revision_config: { graph_config_path: "g.json" } },
      /does not apply/,
    );
    // langgraph deploy --remote creates internal_source with an empty source_revision_config.
    assert.equal(create({ name: "s", source: "internal_source" }).source, "internal_source");
  });

  it("graph_config_path is a relative path inside the project", () => {
    for (const bad of ["/etc/graph.json", "../graph.json", "a/../../b", "a\\b", "C:/x"]) {
      rejects(
        { ...repo, source_revision_config: { repo_ref: "main", graph_config_path: bad } },
        /relative path/,
      );
    }
  });

  it("a tag repo_ref cannot have build_on_push", () => {
    rejects(
      {
        ...repo,
        source_config: { ...repo.source_config, build_on_push: true },
        source_revision_config: { repo_ref: "refs/tags/v1", graph_config_path: "g.json" },
      },
      /build_on_push cannot be true/,
    );
    const ok = create({
      ...repo,
      source_revision_config: { repo_ref: "refs/tags/v1", graph_config_path: "g.json" },
    });
    assert.equal(ok.source_config.build_on_push, false);
  });

  it("repo_ref must be a safe git ref", () => {
    for (const bad of ["--upload-pack=x", "a..b", "a b", "a~1", "refs/heads/", "x.lock"]) {
      rejects(
        { ...repo, source_revision_config: { repo_ref: bad, graph_config_path: "g.json" } },
        /not a valid git ref/,
      );
    }
  });

  it("source-specific fields on the wrong source are 400s", () => {
    rejects(
      { ...external, source_config: { resource_spec: {}, repo_url: "https://x" } },
      /repo_url does not apply/,
    );
    rejects({ ...external, source_config: { deployment_type: "dev" } }, /deployment_type does not apply/);
    rejects(
      { ...repo, source_config: { ...repo.source_config, resource_spec: {} } },
      /resource_spec does not apply/,
    );
    rejects(
      { ...repo, source_config: { ...repo.source_config, custom_url: "https://x" } },
      /custom_url does not apply/,
    );
    rejects(
      { ...repo, source_revision_config: { ...repo.source_revision_config, image_uri: "i" } },
      /image_uri does not apply/,
    );
    rejects(
      { ...repo, secret_references: [{ name: "A", secret_name: "s", secret_key: "k" }] },
      /secret_references does not apply/,
    );
    rejects(
      { name: "i", source: "internal_container", source_revision_config: { repo_ref: "main" } },
      /repo_ref does not apply/,
    );
  });

  it("listeners and upload paths must exist", () => {
    rejects(
      { ...external, source_config: { listener_id: "11111111-1111-4111-8111-111111111111" } },
      /listener .* not found/,
    );
    rejects(
      {
        name: "s",
        source: "internal_source",
        source_revision_config: { source_tarball_path: "x/y.tgz", graph_config_path: "g.json" },
      },
      /upload-url/,
    );
    rejects(
      {
        name: "s",
        source: "internal_source",
        source_revision_config: { source_tarball_path: "uploads/ok.tar.gz" },
      },
      /graph_config_path is required/,
    );
  });

  it("secret names: reserved, invalid and duplicate names are refused", () => {
    rejects({ ...external, secrets: [{ name: "POSTGRES_URI", value: "x" }] }, /reserved/);
    rejects({ ...external, secrets: [{ name: "LANGSMITH_TENANT_ID", value: "x" }] }, /reserved/);
    rejects({ ...external, secrets: [{ name: "1X", value: "x" }] }, /not a valid environment variable/);
    rejects(
      {
        ...external,
        secrets: [
          { name: "A", value: "x" },
          { name: "A", value: "y" },
        ],
      },
      /given twice/,
    );
    rejects(
      {
        ...external,
        secrets: [{ name: "A", value: "x" }],
        secret_references: [{ name: "A", secret_name: "s", secret_key: "k" }],
      },
      /both a secret and a secret reference/,
    );
  });

  it("defaults: deployment_type prod on cloud sources, a normalized resource_spec on external ones", () => {
    assert.equal(create(repo).source_config.deployment_type, "prod");
    const ext = create(external);
    assert.equal(ext.source_config.deployment_type, null);
    assert.equal(ext.source_config.resource_spec?.cpu, 1);
    assert.equal(ext.source_config.resource_spec?.cpu_limit, null, "derived: computed where used");
    assert.equal(ext.status, "AWAITING_DATABASE");
    assert.ok(ext.latest_revision_id);
  });
});

describe("PATCH semantics", () => {
  const patch = (d: Deployment, body: Record<string, unknown>, always = false) =>
    planPatch(d, DeploymentPatchRequest.parse(body), ctx, always);
  const withSecrets = () =>
    create({
      ...external,
      secrets: [
        { name: "A", value: "a1" },
        { name: "B", value: "b1" },
      ],
    });

  it("build_on_push, custom_url and display_name change without a revision", () => {
    const d = create(repo);
    const plan = patch(d, { source_config: { build_on_push: true }, display_name: "Nice" });
    assert.equal(plan.revision, null);
    assert.equal(plan.deployment.source_config.build_on_push, true);
    assert.equal(plan.deployment.display_name, "Nice");
    const e = patch(create(external), { source_config: { custom_url: "https://agent.example" } });
    assert.equal(e.revision, null);
    assert.equal(e.deployment.source_config.custom_url, "https://agent.example");
  });

  it("each revision field with a non-null value creates a revision; nulls never clear", () => {
    const d = create(repo);
    assert.equal(
      patch(d, { source_revision_config: { repo_ref: null, graph_config_path: null } }).revision,
      null,
    );
    const plan = patch(d, { source_revision_config: { repo_ref: "dev" } });
    assert.equal(plan.revision?.source_revision_config.repo_ref, "dev");
    assert.equal(plan.revision?.source_revision_config.graph_config_path, "graph.json", "kept");
    assert.ok(patch(d, { source_config: { install_command: "npm ci" } }).revision);
    assert.ok(patch(d, { source_config: { build_command: "npm run build" } }).revision);
    const e = create(external);
    assert.ok(patch(e, { source_revision_config: { image_uri: "img:2" } }).revision);
    assert.ok(patch(e, { secret_references: [] }).revision, "[] secret_references removes them: a revision");
  });

  it("an empty secrets list changes nothing; a non-empty one replaces the list", () => {
    const d = withSecrets();
    assert.equal(patch(d, { secrets: [] }).revision, null);
    const plan = patch(d, { secrets: [{ name: "C", value: "c1" }] });
    assert.deepEqual(plan.revision?.secrets, [{ name: "C", value: "c1" }]);
  });

  it("a masked value keeps the stored one; a mask without a stored value is a 400", () => {
    const d = withSecrets();
    const plan = patch(d, {
      secrets: [
        { name: "A", value: SECRET_MASK },
        { name: "B", value: "b2" },
      ],
    });
    assert.deepEqual(plan.revision?.secrets, [
      { name: "A", value: "a1" },
      { name: "B", value: "b2" },
    ]);
    assert.throws(() => patch(d, { secrets: [{ name: "Z", value: SECRET_MASK }] }), BadRequestError);
  });

  it("resource_spec replaces the whole object (then gets defaults again)", () => {
    const d = create({
      ...external,
      source_config: { resource_spec: { cpu: 4, memory_mb: 4096, labels: { a: "b" } } },
    });
    const plan = patch(d, { source_config: { resource_spec: { memory_mb: 1024 } } });
    assert.equal(plan.revision?.resource_spec?.cpu, 1, "cpu back to the default, not merged");
    assert.equal(plan.revision?.resource_spec?.memory_mb, 1024);
    assert.equal(plan.revision?.resource_spec?.labels, null);
    assert.equal(patch(d, { source_config: { resource_spec: null } }).revision, null);
  });

  it("immutable fields may be re-sent unchanged but not changed", () => {
    const d = create(repo);
    assert.equal(
      patch(d, { name: "agent", source: "repo_host", source_config: { repo_url: "https://git.example/a/b" } })
        .revision,
      null,
    );
    for (const body of [
      { name: "other" },
      { source: "internal_source" },
      { revision_source: "internal_source" },
      { source_config: { repo_url: "https://git.example/c/d" } },
      { source_config: { deployment_type: "dev" } },
      { source_config: { integration_id: "11111111-1111-4111-8111-111111111111" } },
    ]) {
      assert.throws(() => patch(d, body), BadRequestError, JSON.stringify(body));
    }
  });

  it("build_on_push on a tag ref is refused on PATCH too", () => {
    const d = create({
      ...repo,
      source_revision_config: { repo_ref: "refs/tags/v1", graph_config_path: "g.json" },
    });
    assert.throws(() => patch(d, { source_config: { build_on_push: true } }), /build_on_push cannot be true/);
    assert.throws(
      () =>
        patch(create(repo), {
          source_config: { build_on_push: true },
          source_revision_config: { repo_ref: "refs/tags/v2" },
        }),
      /build_on_push cannot be true/,
    );
  });

  it("POST …/revisions always creates a revision, carrying tracked_packages", () => {
    const d = create(external);
    const plan = patch(d, { tracked_packages: ["langgraph:1.0"] }, true);
    assert.ok(plan.revision);
    assert.deepEqual(plan.revision?.source_revision_config.tracked_packages, ["langgraph:1.0"]);
  });
});
