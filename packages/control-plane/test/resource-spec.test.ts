// ResourceSpec: bounds (schema, 422), rounding, the spec's defaults, cross-field rules (400) and
// the Kubernetes rules (422 with the field's path; http-kubernetes-rules.test.ts has the rest).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  DERIVED_FIELDS,
  effectiveResourceSpec,
  normalizeResourceSpec,
  roundCpu,
  withoutDerivedDefaults,
} from "../src/domain/resource-spec.js";
import { BadRequestError, UnprocessableError } from "../src/errors.js";
import { ResourceSpecInput } from "../src/schemas/resource-spec.js";

const parse = (input: unknown) => ResourceSpecInput.parse(input);
/** The spec as the listener and the local runtime see it (defaults computed). */
const effective = (input: unknown) => effectiveResourceSpec(normalizeResourceSpec(parse(input)));

describe("ResourceSpec", () => {
  it("an empty spec is stored with the base values only; derived fields stay null (as the real service answers)", () => {
    const stored = normalizeResourceSpec(parse({}));
    assert.deepEqual([stored.min_scale, stored.max_scale, stored.cpu, stored.memory_mb], [1, 1, 1, 2048]);
    for (const field of DERIVED_FIELDS) assert.equal(stored[field], null, field);
    assert.ok("executor_cpu" in stored, "every known field is present");
  });

  it("an empty spec's effective values: the base values and the derived defaults", () => {
    const s = effective({});
    assert.equal(s.min_scale, 1);
    assert.equal(s.max_scale, 1);
    assert.equal(s.cpu, 1);
    assert.equal(s.memory_mb, 2048);
    assert.equal(s.cpu_limit, 2);
    assert.equal(s.memory_limit_mb, 4096);
    assert.equal(s.queue_cpu, 1);
    assert.equal(s.queue_cpu_limit, 2);
    assert.equal(s.queue_memory_mb, 2048);
    assert.equal(s.queue_memory_limit_mb, 4096);
    assert.equal(s.queue_min_scale, 1);
    assert.equal(s.cache_cpu, null);
    assert.equal(s.cache_cpu_limit, null);
    assert.equal(s.labels, null);
    assert.ok("executor_cpu" in s, "every known field is present");
  });

  it("limits default to twice the request; queue values follow the server's; cache memory limit = request", () => {
    const s = effectiveResourceSpec(
      normalizeResourceSpec(
        parse({
          cpu: 2,
          memory_mb: 1000,
          min_scale: 2,
          max_scale: 5,
          cache_cpu: 0.5,
          cache_memory_mb: 300,
          db_cpu: 1,
          db_memory_mb: 512,
          queue_cpu: 3,
        }),
      ),
    );
    assert.equal(s.cpu_limit, 4);
    assert.equal(s.memory_limit_mb, 2000);
    assert.equal(s.queue_min_scale, 2);
    assert.equal(s.queue_max_scale, 5);
    assert.equal(s.queue_cpu, 3);
    assert.equal(s.queue_cpu_limit, 6);
    assert.equal(s.queue_memory_mb, 1000);
    assert.equal(s.queue_memory_limit_mb, 2000);
    assert.equal(s.cache_cpu_limit, 1);
    assert.equal(s.cache_memory_limit_mb, 300);
    assert.equal(s.db_cpu_limit, 2);
    assert.equal(s.db_memory_limit_mb, 1024);
  });

  it("a default limit never passes the 16-core cap", () => {
    assert.equal(effective({ cpu: 8 }).cpu_limit, 16);
  });

  it("a value the client chose is kept as chosen, and what derives from it follows it", () => {
    const stored = normalizeResourceSpec(parse({ cpu: 2, queue_cpu: 0.5 }));
    assert.equal(stored.queue_cpu, 0.5);
    assert.equal(stored.queue_cpu_limit, null);
    const s = effectiveResourceSpec(stored);
    assert.deepEqual([s.cpu_limit, s.queue_cpu, s.queue_cpu_limit], [4, 0.5, 1]);
  });

  it("a request above a default limit is judged against that limit", () => {
    assert.doesNotThrow(() => normalizeResourceSpec(parse({ cpu: 4, memory_mb: 4096 })));
    assert.throws(() => normalizeResourceSpec(parse({ cpu: 1, queue_cpu_limit: 0.5 })), BadRequestError);
  });

  it("specs stored with every default written out lose only the derived values equal to their defaults", () => {
    const cases = [
      {},
      { cpu: 2, memory_mb: 1000, min_scale: 2, max_scale: 5, cache_cpu: 0.5, cache_memory_mb: 300 },
      { cpu: 2, queue_cpu: 3, db_cpu: 1, db_memory_mb: 512 },
      { cpu: 1, cpu_limit: 2, queue_cpu: 1, queue_cpu_limit: 6, memory_limit_mb: 5000 },
      { cpu: 8 },
    ];
    for (const input of cases) {
      const old = effective(input);
      const declared = withoutDerivedDefaults(old);
      assert.deepEqual(effectiveResourceSpec(declared), old, JSON.stringify(input));
      assert.deepEqual(withoutDerivedDefaults(declared), declared, "applying it twice changes nothing");
    }
    const kept = withoutDerivedDefaults(effective({ cpu: 1, queue_cpu: 1, queue_cpu_limit: 6 }));
    assert.deepEqual(
      [kept.cpu_limit, kept.queue_cpu, kept.queue_cpu_limit, kept.memory_limit_mb],
      [null, null, 6, null],
      "a limit unlike its default stays; values equal to their defaults go",
    );
  });

  it("rounds CPU values to one decimal place; explicit values win", () => {
    assert.equal(roundCpu(0.14), 0.1);
    assert.equal(roundCpu(1.25), 1.3);
    const s = effective({ cpu: 0.333, cpu_limit: 0.96, cache_cpu: 7.99 });
    assert.equal(s.cpu, 0.3);
    assert.equal(s.cpu_limit, 1);
    assert.equal(s.cache_cpu, 8);
  });

  it("bounds are schema errors", () => {
    for (const bad of [
      { cpu: 0.05 },
      { cpu: 8.5 },
      { cpu_limit: 16.1 },
      { queue_cpu: 9 },
      { cache_cpu_limit: 0 },
      { memory_mb: 1.5 },
      { min_scale: -1 },
      { cpu: "1" },
    ]) {
      assert.equal(ResourceSpecInput.safeParse(bad).success, false, JSON.stringify(bad));
    }
    for (const good of [{ cpu: 0.1 }, { cpu: 8 }, { cpu_limit: 16 }, { cpu: null }]) {
      assert.equal(ResourceSpecInput.safeParse(good).success, true, JSON.stringify(good));
    }
  });

  it("cross-field rules are 400s", () => {
    const bad = [
      { min_scale: 3, max_scale: 2 },
      { cpu: 2, cpu_limit: 1 },
      { memory_mb: 1000, memory_limit_mb: 10 },
    ];
    for (const input of bad) {
      assert.throws(() => normalizeResourceSpec(parse(input)), BadRequestError, JSON.stringify(input));
    }
    const ok = normalizeResourceSpec(
      parse({
        volumes: [{ name: "data", emptyDir: {} }],
        volume_mounts: [{ name: "data", mountPath: "/data" }],
      }),
    );
    assert.equal(ok.volumes?.length, 1);
  });

  it("what a Kubernetes API server would refuse is a 422 with the field's path", () => {
    const bad: Array<[unknown, Array<string | number>]> = [
      [
        {
          volumes: [
            { name: "a", emptyDir: {} },
            { name: "a", emptyDir: {} },
          ],
        },
        ["volumes", 1, "name"],
      ],
      [{ volume_mounts: [{ name: "missing", mountPath: "/x" }] }, ["volume_mounts", 0, "name"]],
      [
        {
          sidecars: [
            { name: "s", image: "i" },
            { name: "s", image: "j" },
          ],
        },
        ["sidecars", 1, "name"],
      ],
      [
        {
          sidecars: [
            {
              name: "s",
              image: "i",
              env: [{ name: "A", value: "x", valueFrom: { secretKeyRef: { key: "k" } } }],
            },
          ],
        },
        ["sidecars", 0, "env", 0, "valueFrom"],
      ],
    ];
    for (const [input, path] of bad) {
      assert.throws(
        () => normalizeResourceSpec(parse(input)),
        (e: unknown) =>
          e instanceof UnprocessableError &&
          e.issues.some(
            (i) =>
              JSON.stringify(i.loc) === JSON.stringify(["body", "source_config", "resource_spec", ...path]),
          ),
        JSON.stringify(input),
      );
    }
  });

  it("nested Kubernetes objects are validated (DNS labels, C identifiers, enums)", () => {
    const bad = [
      { volumes: [{ name: "Bad_Name" }] },
      { init_containers: [{ name: "ok", image: "i", imagePullPolicy: "Sometimes" }] },
      { sidecars: [{ name: "ok", image: "i", env: [{ name: "1BAD" }] }] },
      { sidecars: [{ name: "ok", image: "i", restartPolicy: "Never" }] },
      { sidecars: [{ name: "ok" }] },
      { image_pull_secrets: [{}] },
      { labels: { a: 1 } },
    ];
    for (const input of bad)
      assert.equal(ResourceSpecInput.safeParse(input).success, false, JSON.stringify(input));
  });
});
