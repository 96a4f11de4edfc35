// What the Kubernetes-rules suites share: a deployment created with a resource_spec, and the
// assertion that a 422 names the refused field.
import assert from "node:assert/strict";
import { externalBody, type TestPlane } from "./helpers.js";

/** Where a resource_spec field's issue is: `[...SPEC, field]`. */
export const SPEC = ["body", "source_config", "resource_spec"];
type Issue = { loc: Array<string | number>; msg: string; type: string };

/** A creator of external-image deployments named `<prefix>-<n>` on one plane. */
export function deploymentCreator(plane: () => TestPlane, prefix: string) {
  let counter = 0;
  const name = () => `${prefix}-${++counter}`;
  return {
    name,
    create(spec: Record<string, unknown>, extra: Record<string, unknown> = {}) {
      return plane().call({
        method: "POST",
        url: "/v2/deployments",
        payload: externalBody(name(), { source_config: { resource_spec: spec }, ...extra }),
      });
    },
  };
}

/** Asserts a 422 whose issues include one at `loc` (msg matching `msg` when given). */
export function refusedAt(
  res: { statusCode: number; json(): unknown },
  loc: Array<string | number>,
  msg?: RegExp,
): Issue {
  assert.equal(res.statusCode, 422, JSON.stringify(res.json()));
  const issues = (res.json() as { detail: Issue[] }).detail;
  const found = issues.find((i) => JSON.stringify(i.loc) === JSON.stringify(loc));
  assert.ok(found, `no issue at ${JSON.stringify(loc)}: ${JSON.stringify(issues)}`);
  if (msg) assert.match(found.msg, msg);
  assert.equal(typeof found.type, "string");
  return found;
}
