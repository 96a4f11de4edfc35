import { randomUUID } from "node:crypto";
import type { ResourceType } from "./resources.js";

/** An object as the simulator stores it (plain JSON). */
export type KubeJson = {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    uid?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    resourceVersion?: string;
    generation?: number;
    creationTimestamp?: string;
    ownerReferences?: Array<{
      apiVersion: string;
      kind: string;
      name: string;
      uid: string;
      controller?: boolean;
    }>;
    managedFields?: unknown[];
    [field: string]: unknown;
  };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
  [field: string]: unknown;
};

/** The simulator's objects, keyed by kind/namespace/name, with one resourceVersion counter. */
export class ObjectStore {
  readonly #objects = new Map<string, KubeJson>();
  #version = 1;

  static key(kind: string, namespace: string | undefined, name: string): string {
    return `${kind}/${namespace ?? ""}/${name}`;
  }

  get(kind: string, namespace: string | undefined, name: string): KubeJson | undefined {
    return this.#objects.get(ObjectStore.key(kind, namespace, name));
  }

  /** Objects of a kind (in a namespace, or all), optionally matching a label selector. */
  list(kind: string, namespace?: string, selector?: string): KubeJson[] {
    const match = selector ? parseSelector(selector) : () => true;
    return [...this.#objects.values()]
      .filter((o) => o.kind === kind && (namespace === undefined || o.metadata.namespace === namespace))
      .filter((o) => match(o.metadata.labels ?? {}))
      .sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
  }

  all(): KubeJson[] {
    return [...this.#objects.values()];
  }

  /** Stores a new or changed object; stamps uid, creationTimestamp and a new resourceVersion. */
  put(object: KubeJson): KubeJson {
    const key = ObjectStore.key(object.kind, object.metadata.namespace, object.metadata.name);
    const existing = this.#objects.get(key);
    object.metadata.uid ??= existing?.metadata.uid ?? randomUUID();
    object.metadata.creationTimestamp ??= existing?.metadata.creationTimestamp ?? new Date().toISOString();
    object.metadata.resourceVersion = String(++this.#version);
    this.#objects.set(key, object);
    return object;
  }

  delete(kind: string, namespace: string | undefined, name: string): KubeJson | undefined {
    const key = ObjectStore.key(kind, namespace, name);
    const object = this.#objects.get(key);
    this.#objects.delete(key);
    return object;
  }

  /** The objects whose ownerReferences name `uid`. */
  dependentsOf(uid: string): KubeJson[] {
    return this.all().filter((o) => o.metadata.ownerReferences?.some((r) => r.uid === uid));
  }

  get resourceVersion(): string {
    return String(this.#version);
  }
}

/**
 * A label selector as the API takes it: `k=v`, `k==v`, `k!=v`, `k`, `!k`, `k in (a,b)`,
 * `k notin (a,b)`, joined by commas.
 */
export function parseSelector(text: string): (labels: Record<string, string>) => boolean {
  // Split on commas outside parentheses.
  const parts = (text.match(/[^,(]+(\([^)]*\))?[^,]*/g) ?? []).map((p) => p.trim()).filter(Boolean);
  const terms = parts.map(selectorTerm);
  return (labels) => terms.every((t) => t(labels));
}

type Labels = Record<string, string>;

/** One requirement of a label selector. */
function selectorTerm(raw: string): (labels: Labels) => boolean {
  const set = /^([\w./-]+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(raw);
  if (set) {
    const [, key = "", op, list = ""] = set;
    const values = list.split(",").map((v) => v.trim());
    return (l) =>
      op === "in" ? key in l && values.includes(l[key] ?? "") : !values.includes(l[key] ?? "\0");
  }
  const unequal = /^([\w./-]+)\s*!=\s*([\w./-]*)$/.exec(raw);
  if (unequal) return (l) => l[unequal[1] ?? ""] !== unequal[2];
  const equal = /^([\w./-]+)\s*==?\s*([\w./-]*)$/.exec(raw);
  if (equal) return (l) => l[equal[1] ?? ""] === equal[2];
  const absent = /^!([\w./-]+)$/.exec(raw);
  if (absent) return (l) => !((absent[1] ?? "") in l);
  const present = /^([\w./-]+)$/.exec(raw);
  if (present) return (l) => (present[1] ?? "") in l;
  throw new SelectorError(`unable to parse requirement: ${raw}`);
}

/** A label selector the simulator cannot parse (400, as the API answers). */
export class SelectorError extends Error {}

/** Types by kind, for callers holding a type. */
export type { ResourceType };
