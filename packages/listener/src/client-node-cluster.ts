import { ApiException, CoreV1Api, KubernetesObjectApi, PatchStrategy } from "@kubernetes/client-node";
import { loadKubeConfig } from "./kube-config.js";
import type { ClusterPort, KubeObject } from "./types.js";

/** Where the listener finds its cluster credentials. */
export type KubeAccess = { kind: "in-cluster" } | { kind: "file"; path: string } | { kind: "default" };

/** The field manager of every server-side apply the listener makes. */
export const FIELD_MANAGER = "berth";

/** A readable error from the API server's Status answer (its message, not the whole exchange). */
function apiError(error: unknown): Error {
  if (error instanceof ApiException) {
    let detail = String(error.body ?? "");
    try {
      detail = (JSON.parse(detail) as { message?: string }).message ?? detail;
    } catch {
      // A body that is not JSON is shown as it is.
    }
    const out = new Error(`Kubernetes API ${error.code}: ${detail}`);
    (out as Error & { code?: number }).code = error.code;
    return out;
  }
  return error instanceof Error ? error : new Error(String(error));
}

const codeOf = (error: unknown) => (error as { code?: number }).code;

/** The Kubernetes port on @kubernetes/client-node 1.4.0 (2.x needs Node 22). */
export class ClientNodeCluster implements ClusterPort {
  readonly #objects: KubernetesObjectApi;
  readonly #core: CoreV1Api;

  constructor(access: KubeAccess) {
    const kc = loadKubeConfig(access);
    this.#objects = KubernetesObjectApi.makeApiClient(kc);
    this.#core = kc.makeApiClient(CoreV1Api);
  }

  async apply(object: KubeObject): Promise<void> {
    try {
      await this.#objects.patch(
        object,
        undefined,
        undefined,
        FIELD_MANAGER,
        true,
        PatchStrategy.ServerSideApply,
      );
    } catch (error) {
      throw apiError(error);
    }
  }

  async list(
    apiVersion: string,
    kind: string,
    namespace: string | undefined,
    labelSelector: string,
  ): Promise<KubeObject[]> {
    try {
      const list = await this.#objects.list(
        apiVersion,
        kind,
        namespace,
        undefined,
        undefined,
        undefined,
        undefined,
        labelSelector,
      );
      return list.items as unknown as KubeObject[];
    } catch (error) {
      throw apiError(error);
    }
  }

  async get(
    apiVersion: string,
    kind: string,
    namespace: string,
    name: string,
  ): Promise<KubeObject | undefined> {
    try {
      return (await this.#objects.read({
        apiVersion,
        kind,
        metadata: { name, namespace },
      })) as unknown as KubeObject;
    } catch (error) {
      const e = apiError(error);
      if (codeOf(e) === 404) return undefined;
      throw e;
    }
  }

  async delete(
    object: Pick<KubeObject, "apiVersion" | "kind" | "metadata">,
    propagation: "Background" | "Orphan" = "Background",
  ): Promise<void> {
    try {
      await this.#objects.delete(
        { apiVersion: object.apiVersion, kind: object.kind, metadata: object.metadata },
        undefined,
        undefined,
        undefined,
        undefined,
        propagation,
      );
    } catch (error) {
      const e = apiError(error);
      if (codeOf(e) !== 404) throw e;
    }
  }

  async podLogs(
    namespace: string,
    pod: string,
    container: string,
    tailLines: number,
    previous: boolean,
  ): Promise<string> {
    try {
      return await this.#core.readNamespacedPodLog({ name: pod, namespace, container, tailLines, previous });
    } catch (error) {
      throw apiError(error);
    }
  }
}
