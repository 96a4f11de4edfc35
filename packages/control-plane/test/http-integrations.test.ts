// Integrations backed by configured git hosts (BERTH_GIT_HOSTS): listed in the real service's shape.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { after, describe, it } from "node:test";
import { makeTempDir } from "@berth-platform/testkit";
import { usePlane } from "./helpers.js";

const repos = makeTempDir("berth-git-hosts-");
after(() => repos.cleanup());
execFileSync("git", [
  "init",
  "--bare",
  "--quiet",
  "--initial-branch=trunk",
  path.join(repos.dir, "agent.git"),
]);
execFileSync("git", ["init", "--quiet", "--initial-branch=main", path.join(repos.dir, "tools")]);
fs.mkdirSync(path.join(repos.dir, "not-a-repo"));

const plane = usePlane({ BERTH_GIT_HOSTS: `local=${repos.dir}` });

describe("integrations", () => {
  it("lists configured hosts and their repositories under github and repo_host paths", async () => {
    for (const host of ["github", "repo_host"]) {
      const install = await plane().call({ method: "GET", url: `/v1/integrations/${host}/install` });
      assert.equal(install.statusCode, 200);
      const [integration] = install.json<Array<{ id: string; installation_id: number; name: string }>>();
      assert.equal(integration?.name, "local");
      assert.equal(typeof integration?.installation_id, "number");
      const listed = await plane().call({
        method: "GET",
        url: `/v1/integrations/${host}/${integration?.id}/repos`,
      });
      assert.equal(listed.statusCode, 200);
      const found =
        listed.json<
          Array<{
            name: string;
            owner: string;
            url: string;
            default_branch: string;
            host_integration_id: string;
          }>
        >();
      assert.deepEqual(
        found.map((r) => [r.name, r.default_branch]),
        [
          ["agent", "trunk"],
          ["tools", "main"],
        ],
      );
      assert.ok(
        found.every(
          (r) =>
            r.url.startsWith("file://") && r.owner === "local" && r.host_integration_id === integration?.id,
        ),
      );
    }
  });

  it("is 404 for an unknown integration and 422 for a malformed id; keys are required", async () => {
    assert.equal(
      (
        await plane().call({
          method: "GET",
          url: "/v1/integrations/github/00000000-0000-4000-8000-000000000000/repos",
        })
      ).statusCode,
      404,
    );
    assert.equal(
      (await plane().call({ method: "GET", url: "/v1/integrations/github/nope/repos" })).statusCode,
      422,
    );
    assert.equal(
      (await plane().raw({ method: "GET", url: "/v1/integrations/github/install" })).statusCode,
      401,
    );
  });
});
