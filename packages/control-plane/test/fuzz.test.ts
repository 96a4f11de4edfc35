// 5,000+ malformed or hostile requests: every answer is a 4xx (or a 2xx), never a 5xx.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  malformedBody,
  mutate as mutateAny,
  pick as pickOne,
  routesOf,
  prng as seeded,
} from "@berth-platform/testkit";
import { ADMIN_KEY, externalBody, repoBody, usePlane } from "./helpers.js";

const plane = usePlane();

/** A small deterministic PRNG (mulberry32), so a failure reproduces. */
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ODD_VALUES: unknown[] = [
  null,
  true,
  false,
  0,
  -1,
  1e308,
  -0.0001,
  0.1,
  8.05,
  16.01,
  2 ** 53 + 1,
  "",
  " ",
  "x".repeat(5000),
  "../../etc/passwd",
  "refs/tags/v1",
  "--upload-pack=touch /tmp/x",
  "\u0000",
  "é",
  "github",
  "external_docker",
  "********",
  [],
  [null],
  {},
  { __proto__: 1 },
  { constructor: { prototype: {} } },
  "00000000-0000-4000-8000-000000000000",
  "DATABASE_URI",
  [{ name: "A", value: "b" }],
];

function pick<T>(rand: () => number, list: readonly T[]): T {
  return list[Math.floor(rand() * list.length)] as T;
}

/** Replaces or deletes a random path inside a JSON value. */
function mutate(rand: () => number, value: unknown, depth = 0): unknown {
  if (depth > 4 || rand() < 0.25) return pick(rand, ODD_VALUES);
  if (Array.isArray(value)) {
    if (value.length === 0) return [pick(rand, ODD_VALUES)];
    const copy = [...value];
    const i = Math.floor(rand() * copy.length);
    copy[i] = mutate(rand, copy[i], depth + 1);
    return copy;
  }
  if (value && typeof value === "object") {
    const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) };
    const keys = Object.keys(copy);
    const r = rand();
    if (r < 0.15 && keys.length) delete copy[pick(rand, keys)];
    else if (r < 0.3)
      copy[pick(rand, ["extra", "id", "tenant_id", "status", "__proto__", "redis_cpu", "k8s_namespace"])] =
        pick(rand, ODD_VALUES);
    else if (keys.length) {
      const k = pick(rand, keys);
      copy[k] = mutate(rand, copy[k], depth + 1);
    }
    return copy;
  }
  return pick(rand, ODD_VALUES);
}

describe("fuzz", () => {
  it("no 5xx across 5,000 hostile requests", async () => {
    const rand = prng(20261122);
    const app = plane().plane.app;
    const seed = await plane().call({
      method: "POST",
      url: "/v2/deployments",
      payload: externalBody("fuzz-target"),
    });
    const d = seed.json() as { id: string; latest_revision_id: string };
    const templates: Array<Record<string, unknown>> = [
      externalBody("fuzz-a", {
        source_config: {
          resource_spec: {
            cpu: 1,
            volumes: [{ name: "v", emptyDir: {} }],
            sidecars: [{ name: "s", image: "i", env: [{ name: "A" }] }],
          },
        },
      }),
      repoBody("fuzz-b"),
      {
        source_revision_config: { image_uri: "i:2" },
        secrets: [{ name: "A", value: "b" }],
        source_config: { resource_spec: {} },
      },
    ];
    const base = `/v2/deployments/${d.id}`;
    const rev = `${base}/revisions/${d.latest_revision_id}`;
    // The target deployment is never deleted, so mutations keep reaching the rules behind it.
    const routes: Array<[string, string]> = [
      ["POST", "/v2/deployments"],
      ["POST", "/v2/deployments"],
      ["PATCH", base],
      ["PATCH", base],
      ["POST", `${base}/revisions`],
      ["GET", `${base}/revisions?status=%FF&limit=2`],
      ["POST", `${rev}/redeploy`],
      ["POST", `${rev}/interrupt`],
      ["GET", rev],
      ["GET", "/v2/deployments/%00"],
      ["PUT", base],
      ["PATCH", "/v2/deployments/..%2f..%2f"],
      ["GET", `/v2/deployments?limit=${"9".repeat(40)}&offset=-0`],
      ["GET", "/v2/deployments?deployment_ids=,,,&status=%FF"],
      ["DELETE", "/v2/deployments?deployment_ids=zzz"],
      ["DELETE", `${base}?force=maybe`],
      ["GET", "/v2/tracing-projects?limit=1e3"],
      ["POST", `${base}/push-token`],
      ["GET", "/v2/templates?x=%FF"],
      ["POST", "/v1/integrations/repo_host/push"],
      ["POST", "/v1/integrations/github/push"],
      ["POST", "/agents/00000000-0000-4000-8000-000000000000/runs"],
      ["GET", "/agents/%00/ok"],
      ["PUT", "/v2/uploads/not-a-token"],
    ];
    const contentTypes = [
      "application/json",
      "application/json",
      "application/json; charset=utf-8",
      "text/plain",
      "",
    ];
    let count = 0;
    const statuses = new Map<number, number>();
    for (let i = 0; i < 5200; i += 1) {
      const template = pick(rand, templates);
      const body = rand() < 0.1 ? '{"unterminated": [1, 2' : JSON.stringify(mutate(rand, template));
      const contentType = pick(rand, contentTypes);
      const headers: Record<string, string> = { "x-api-key": rand() < 0.95 ? ADMIN_KEY : "nope" };
      if (contentType) headers["content-type"] = contentType;
      if (rand() < 0.05)
        headers["x-tenant-id"] = pick(rand, ["not-a-uuid", "00000000-0000-4000-8000-000000000000", ""]);
      const [method, url] = pick(rand, routes);
      const res = await app.inject({
        method: method as "GET",
        url,
        headers,
        ...(method === "GET" ? {} : { payload: body }),
      });
      statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
      assert.ok(
        res.statusCode < 500,
        `${method} → ${res.statusCode}: ${res.body.slice(0, 300)} for ${body.slice(0, 300)}`,
      );
      count += 1;
    }
    assert.equal(count, 5200);
    assert.ok((statuses.get(422) ?? 0) > 100 && (statuses.get(400) ?? 0) > 10, JSON.stringify([...statuses]));
  });

  it("every route of the control plane: 5,000+ malformed requests, none answered ≥ 500 (issue 11)", async () => {
    const rand = seeded(20261124);
    const app = plane().plane.app;
    const routes = routesOf(app.printRoutes({ commonPrefix: false }));
    assert.ok(routes.length >= 30, `routes found: ${routes.length}`);
    if (process.env.BERTH_PRINT_ROUTES) console.log(routes.map((r) => `${r.method} ${r.path}`).join("\n"));
    const seed = await plane().call({
      method: "POST",
      url: "/v2/deployments",
      payload: externalBody("fuzz-all"),
    });
    const d = seed.json() as { id: string; latest_revision_id: string };
    const ids: Record<string, string[]> = {
      deployment_id: [d.id, d.id, "00000000-0000-4000-8000-000000000000", "%00", "x".repeat(300)],
      revision_id: [d.latest_revision_id, "00000000-0000-4000-8000-000000000000", "..%2f"],
    };
    const templates: Array<Record<string, unknown>> = [
      externalBody("fuzz-c"),
      repoBody("fuzz-d"),
      { secrets: [{ name: "A", value: "b" }], source_config: { resource_spec: {} } },
      { name: "listener", compute_type: "k8s", compute_config: { k8s_namespace: "n" } },
      { ref: "refs/heads/main", repository: { clone_url: "https://g/x" } },
    ];
    const extra = ["extra", "id", "tenant_id", "status", "__proto__", "name", "secrets", "metadata"];
    const statuses = new Map<number, number>();
    const perRoute = new Map<string, number>();
    const total = Math.max(5_000, routes.length * 130);
    for (let i = 0; i < total; i += 1) {
      const route = routes[i % routes.length] as { method: string; path: string };
      const path = route.path
        .replace(/:([a-z_]+)/g, (_m, name: string) =>
          route.method === "DELETE" || route.path.startsWith("/agents")
            ? pickOne(rand, ["00000000-0000-4000-8000-000000000000", "%00", "zz"])
            : pickOne(rand, ids[name] ?? ["00000000-0000-4000-8000-000000000000", "x", "%FF"]),
        )
        .replace(/\/?\*$/, `/${pickOne(rand, ["ok", "threads/search", "%2e%2e/%2e%2e/etc/passwd", ""])}`);
      const query =
        rand() < 0.3 ? `?${pickOne(rand, ["limit=-1", "offset=1e99", "status=%FF", "a[b]=c", "x=%00"])}` : "";
      const body =
        rand() < 0.2 ? malformedBody(rand) : JSON.stringify(mutateAny(rand, pickOne(rand, templates), extra));
      const headers: Record<string, string> = {
        "x-api-key": rand() < 0.95 ? ADMIN_KEY : "nope",
        "content-type": pickOne(rand, [
          "application/json",
          "application/json",
          "text/plain",
          "application/gzip",
        ]),
      };
      const res = await app.inject({
        method: route.method as "GET",
        url: `${path}${query}`,
        headers,
        ...(route.method === "GET" ? {} : { payload: body }),
      });
      statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
      const key = `${route.method} ${route.path}`;
      perRoute.set(key, (perRoute.get(key) ?? 0) + 1);
      assert.ok(
        res.statusCode < 500,
        `${key} (${path}) → ${res.statusCode}: ${res.body.slice(0, 300)} for ${body.slice(0, 200)}`,
      );
    }
    assert.equal(perRoute.size, routes.length, "every route was exercised");
    assert.ok(total >= 5_000);
  });
});
