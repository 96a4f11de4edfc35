import { execFileSync } from "node:child_process";
import fs from "node:fs";
import https from "node:https";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { type ControllerOptions, SimController, simulatedLogs } from "./controller.js";
import { apiVersionOf, discovery, type ResourceType, typeOf } from "./resources.js";
import { type KubeJson, ObjectStore, SelectorError } from "./store.js";

/** Options of a simulated Kubernetes API server. */
export interface KubeSimulatorOptions extends Partial<ControllerOptions> {
  /** Namespaces that exist (besides `default` and `kube-system`); objects elsewhere are 404. */
  namespaces?: string[];
  /** How often the controller runs. */
  tickMs?: number;
}

/** A request the simulator received (for tests that check what the client sent). */
export interface SimRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  contentType: string | undefined;
}

/** A running simulator. */
export interface KubeSimulator {
  readonly url: string;
  /** The bearer token clients must send. */
  readonly token: string;
  /** The server's self-signed certificate (PEM): the CA a client trusts. */
  readonly caCert: string;
  /** Every request received, in order. */
  readonly requests: SimRequest[];
  /** Objects of a kind (in a namespace), optionally matching a label selector. */
  objects(kind: string, namespace?: string, selector?: string): KubeJson[];
  /** One object, if it exists. */
  get(kind: string, namespace: string | undefined, name: string): KubeJson | undefined;
  /** Writes a kubeconfig for this server into `dir`; returns its path. */
  writeKubeconfig(dir: string, namespace?: string): string;
  close(): Promise<void>;
}

class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

const SIM_VERSION = {
  major: "1",
  minor: "32",
  gitVersion: "v1.32.0-berth-simulator",
  platform: "linux/amd64",
};

/** A throwaway certificate for 127.0.0.1 (the `openssl` CLI; Node cannot make X.509 certificates). */
function selfSignedCertificate(): { key: string; cert: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "berth-kube-sim-tls-"));
  try {
    const [key, cert] = [path.join(dir, "key.pem"), path.join(dir, "cert.pem")];
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-days",
        "2",
        "-subj",
        "/CN=berth-kube-simulator",
        "-addext",
        "subjectAltName=IP:127.0.0.1",
        "-keyout",
        key,
        "-out",
        cert,
      ],
      { stdio: "ignore" },
    );
    return { key: fs.readFileSync(key, "utf8"), cert: fs.readFileSync(cert, "utf8") };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A Kubernetes API server for tests, on loopback HTTPS (a self-signed certificate): discovery, server-side apply (PATCH with
 * `application/apply-patch+yaml`), GET, LIST with label selectors, DELETE with propagation, pod
 * logs. Every object a client sends is validated against the official OpenAPI schema of its kind
 * (kubernetes-models); an invalid one is refused with 422, as the API server does. A small
 * controller (see controller.ts) rolls Deployments out. No WATCH, no other patch types.
 */
export async function startKubeSimulator(options: KubeSimulatorOptions = {}): Promise<KubeSimulator> {
  const store = new ObjectStore();
  const token = `sim-${Math.random().toString(36).slice(2)}`;
  const requests: SimRequest[] = [];
  for (const name of ["default", "kube-system", ...(options.namespaces ?? [])]) {
    store.put({
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name },
      spec: {},
      status: { phase: "Active" },
    });
  }
  const controller = new SimController(store, {
    readyDelayMs: options.readyDelayMs ?? 300,
    progressDeadlineMs: options.progressDeadlineMs ?? null,
  });
  let address = "";
  const tls = selfSignedCertificate();
  const server = https.createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://sim");
      const query = Object.fromEntries(url.searchParams);
      requests.push({
        method: req.method ?? "",
        path: url.pathname,
        query,
        contentType: req.headers["content-type"],
      });
      let status = 200;
      let body: unknown;
      let text: string | undefined;
      try {
        if (req.headers.authorization !== `Bearer ${token}`)
          throw new ApiError(401, "Unauthorized", "Unauthorized");
        const answer = handle(
          req.method ?? "GET",
          url.pathname,
          query,
          req.headers["content-type"],
          Buffer.concat(chunks),
        );
        status = answer.status;
        body = answer.body;
        text = answer.text;
      } catch (error) {
        const e = error instanceof ApiError ? error : new ApiError(500, "InternalError", String(error));
        status = e.code;
        body = {
          kind: "Status",
          apiVersion: "v1",
          metadata: {},
          status: "Failure",
          message: e.message,
          reason: e.reason,
          ...(e.details ? { details: e.details } : {}),
          code: e.code,
        };
      }
      if (text !== undefined) {
        res.writeHead(status, { "content-type": "text/plain" }).end(text);
      } else {
        res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
      }
    });
  });

  function handle(
    method: string,
    pathname: string,
    query: Record<string, string>,
    contentType: string | undefined,
    raw: Buffer,
  ): { status: number; body?: unknown; text?: string } {
    if (method === "GET" && pathname === "/version") return { status: 200, body: SIM_VERSION };
    const doc = method === "GET" ? discovery(pathname.replace(/\/+$/, ""), address) : undefined;
    if (doc) return { status: 200, body: doc };
    const m =
      /^\/(?:api\/(v1)|apis\/([^/]+)\/([^/]+))(?:\/namespaces\/([^/]+))?\/([^/]+)(?:\/([^/]+))?(?:\/([^/]+))?$/.exec(
        pathname,
      );
    if (!m) throw new ApiError(404, "NotFound", "the server could not find the requested resource");
    const [, core, group = "", groupVersion, namespace, plural = "", name, sub] = m;
    // `/api/v1/namespaces/<name>` itself (no resource after it) reads a Namespace.
    const type =
      namespace !== undefined && plural === ""
        ? undefined
        : typeOf(group, core ?? groupVersion ?? "", plural);
    if (!type) throw new ApiError(404, "NotFound", "the server could not find the requested resource");
    if (
      type.namespaced &&
      namespace !== undefined &&
      type.kind !== "Namespace" &&
      !store.get("Namespace", undefined, namespace)
    ) {
      throw new ApiError(404, "NotFound", `namespaces "${namespace}" not found`, {
        name: namespace,
        kind: "namespaces",
      });
    }
    const ns = type.namespaced ? namespace : undefined;
    if (name === undefined) {
      if (method !== "GET")
        throw new ApiError(405, "MethodNotAllowed", `${method} on a collection is not simulated`);
      if (query.watch === "true" || query.watch === "1")
        throw new ApiError(405, "MethodNotAllowed", "watch is not simulated");
      try {
        const items = store.list(type.kind, ns, query.labelSelector).map((o) => structuredClone(o));
        return {
          status: 200,
          body: {
            kind: `${type.kind}List`,
            apiVersion: apiVersionOf(type),
            metadata: { resourceVersion: store.resourceVersion },
            items,
          },
        };
      } catch (error) {
        if (error instanceof SelectorError) throw new ApiError(400, "BadRequest", error.message);
        throw error;
      }
    }
    if (sub === "log" && type.kind === "Pod" && method === "GET") return podLog(ns, name, query);
    if (sub !== undefined)
      throw new ApiError(404, "NotFound", "the server could not find the requested resource");
    const notFound = () =>
      new ApiError(
        404,
        "NotFound",
        `${type.plural}${type.group ? `.${type.group}` : ""} "${name}" not found`,
        { name, group: type.group, kind: type.plural },
      );
    switch (method) {
      case "GET": {
        const object = store.get(type.kind, ns, name);
        if (!object) throw notFound();
        return { status: 200, body: object };
      }
      case "PATCH":
        return apply(type, ns, name, query, contentType, raw);
      case "DELETE": {
        const object = store.get(type.kind, ns, name);
        if (!object) throw notFound();
        const options = raw.length
          ? (JSON.parse(raw.toString("utf8")) as { propagationPolicy?: string })
          : {};
        const policy = query.propagationPolicy ?? options.propagationPolicy ?? "Background";
        remove(object, policy !== "Orphan");
        return {
          status: 200,
          body: {
            kind: "Status",
            apiVersion: "v1",
            metadata: {},
            status: "Success",
            details: { name, group: type.group, kind: type.plural, uid: object.metadata.uid },
          },
        };
      }
      default:
        throw new ApiError(405, "MethodNotAllowed", `${method} is not simulated`);
    }
  }

  function apply(
    type: ResourceType,
    ns: string | undefined,
    name: string,
    query: Record<string, string>,
    contentType: string | undefined,
    raw: Buffer,
  ) {
    if (!contentType?.startsWith("application/apply-patch+yaml")) {
      throw new ApiError(
        415,
        "UnsupportedMediaType",
        `the simulator only takes server-side apply (application/apply-patch+yaml), not ${contentType}`,
      );
    }
    if (!query.fieldManager)
      throw new ApiError(
        400,
        "BadRequest",
        'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
      );
    let applied: KubeJson;
    try {
      applied = JSON.parse(raw.toString("utf8")) as KubeJson;
    } catch {
      throw new ApiError(
        400,
        "BadRequest",
        "the simulator reads apply bodies written as JSON (a YAML subset)",
      );
    }
    if (applied.apiVersion !== apiVersionOf(type) || applied.kind !== type.kind) {
      throw new ApiError(
        400,
        "BadRequest",
        `the body's ${applied.apiVersion} ${applied.kind} does not match the URL's ${type.kind}`,
      );
    }
    if (
      applied.metadata?.name !== name ||
      (applied.metadata.namespace !== undefined && applied.metadata.namespace !== ns)
    ) {
      throw new ApiError(400, "BadRequest", "the body's name or namespace does not match the URL");
    }
    try {
      new type.model(structuredClone(applied) as never).validate();
    } catch (error) {
      throw new ApiError(422, "Invalid", `${type.kind} "${name}" is invalid: ${(error as Error).message}`, {
        name,
        kind: type.kind,
      });
    }
    const existing = store.get(type.kind, ns, name);
    const { status: _ignored, ...desired } = structuredClone(applied);
    if (type.kind === "Secret" && desired.stringData) {
      // As the API server does: stringData is merged into data (base64) and never stored.
      const data = { ...((desired.data as Record<string, string>) ?? {}) };
      for (const [k, v] of Object.entries(desired.stringData as Record<string, string>))
        data[k] = Buffer.from(v).toString("base64");
      desired.data = data;
      delete desired.stringData;
    }
    const specChanged = JSON.stringify(existing?.spec) !== JSON.stringify(desired.spec);
    const generation = (existing?.metadata.generation ?? 0) + (existing && !specChanged ? 0 : 1);
    const time = new Date().toISOString();
    const object: KubeJson = {
      ...desired,
      metadata: {
        ...desired.metadata,
        namespace: ns,
        generation,
        uid: existing?.metadata.uid,
        creationTimestamp: existing?.metadata.creationTimestamp,
        managedFields: [
          {
            manager: query.fieldManager,
            operation: "Apply",
            apiVersion: applied.apiVersion,
            time,
            fieldsType: "FieldsV1",
            fieldsV1: {},
          },
        ],
      },
      ...(existing?.status ? { status: existing.status } : {}),
    };
    if (!type.namespaced) delete object.metadata.namespace;
    const stored = store.put(object);
    controller.tick();
    return { status: existing ? 200 : 201, body: store.get(type.kind, ns, name) ?? stored };
  }

  function remove(object: KubeJson, cascade: boolean): void {
    store.delete(object.kind, object.metadata.namespace, object.metadata.name);
    for (const dependent of store.dependentsOf(object.metadata.uid ?? "")) {
      if (cascade) remove(dependent, true);
      else
        dependent.metadata.ownerReferences = dependent.metadata.ownerReferences?.filter(
          (r) => r.uid !== object.metadata.uid,
        );
    }
  }

  function podLog(ns: string | undefined, name: string, query: Record<string, string>) {
    const pod = store.get("Pod", ns, name);
    if (!pod) throw new ApiError(404, "NotFound", `pods "${name}" not found`);
    const containers = (pod.spec as { containers: Array<{ name: string; image: string }> }).containers;
    const container = containers.find((c) => c.name === (query.container ?? containers[0]?.name));
    if (!container)
      throw new ApiError(400, "BadRequest", `container ${query.container} is not valid for pod ${name}`);
    const statuses = (pod.status?.containerStatuses ?? []) as Array<{
      name: string;
      state?: { waiting?: { reason?: string } };
      restartCount?: number;
    }>;
    const state = statuses.find((s) => s.name === container.name);
    if (
      state?.state?.waiting?.reason === "ImagePullBackOff" ||
      state?.state?.waiting?.reason === "ContainerCreating"
    ) {
      throw new ApiError(
        400,
        "BadRequest",
        `container "${container.name}" in pod "${name}" is waiting to start: ${state.state.waiting.reason === "ImagePullBackOff" ? "trying and failing to pull image" : "ContainerCreating"}`,
      );
    }
    let lines = simulatedLogs(container.image).split("\n").filter(Boolean);
    const tail = Number(query.tailLines);
    if (Number.isInteger(tail) && tail >= 0) lines = lines.slice(-tail || lines.length);
    return { status: 200, text: `${lines.join("\n")}\n` };
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  address = `127.0.0.1:${port}`;
  const url = `https://${address}`;
  const timer = setInterval(() => controller.tick(), options.tickMs ?? 100);
  timer.unref();
  return {
    url,
    token,
    caCert: tls.cert,
    requests,
    objects: (kind, namespace, selector) =>
      store.list(kind, namespace, selector).map((o) => structuredClone(o)),
    get: (kind, namespace, name) => {
      const o = store.get(kind, namespace, name);
      return o && structuredClone(o);
    },
    writeKubeconfig(dir, namespace = "default") {
      const file = path.join(dir, "kubeconfig.yaml");
      // HTTPS with the server's own certificate as the CA: kubectl (client-go) sends no bearer
      // token over plain HTTP, and client-node 1.x refuses http:// without skipping TLS checks.
      const text = [
        "apiVersion: v1",
        "kind: Config",
        "clusters:",
        "- name: sim",
        "  cluster:",
        `    server: ${url}`,
        `    certificate-authority-data: ${Buffer.from(tls.cert).toString("base64")}`,
        "users:",
        "- name: sim",
        "  user:",
        `    token: ${token}`,
        "contexts:",
        "- name: sim",
        "  context:",
        "    cluster: sim",
        "    user: sim",
        `    namespace: ${namespace}`,
        "current-context: sim",
        "",
      ].join("\n");
      fs.writeFileSync(file, text, { mode: 0o600 });
      return file;
    },
    async close() {
      clearInterval(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
