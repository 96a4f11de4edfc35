import { useEffect, useRef, useState } from "preact/hooks";
import type { ControlPlaneClient } from "../api/control-plane.js";
import type { Deployment } from "../api/types.js";
import { isSettled } from "../format.js";

const CONCURRENCY = 6;
const REFRESH_MS = 2000;

/**
 * The latest revision's status of each listed deployment: fetched a few at a time (the list API
 * has no revision status), refreshed while not settled, applied to the page in batches so 500 rows
 * do not re-render 500 times.
 */
export function useRevisionStatuses(client: ControlPlaneClient, deployments: Deployment[] | undefined) {
  const [statuses, setStatuses] = useState<ReadonlyMap<string, string>>(new Map());
  const known = useRef(new Map<string, { revision: string; status: string }>());

  useEffect(() => {
    if (!deployments) return;
    let stopped = false;
    let flush: ReturnType<typeof setTimeout> | undefined;
    const publish = () => {
      flush ??= setTimeout(() => {
        flush = undefined;
        if (!stopped) {
          setStatuses(new Map([...known.current].map(([id, v]) => [id, v.status])));
        }
      }, 50);
    };
    const due = () =>
      deployments.filter((d) => {
        if (!d.latest_revision_id) return false;
        const k = known.current.get(d.id);
        return !k || k.revision !== d.latest_revision_id || !isSettled(k.status);
      });
    const fetchAll = async (list: Deployment[]) => {
      let next = 0;
      const worker = async () => {
        while (!stopped && next < list.length) {
          const d = list[next++] as Deployment;
          try {
            const page = await client.revisions(d.id, 1);
            const latest = page.resources[0];
            if (latest) known.current.set(d.id, { revision: latest.id, status: latest.status });
            publish();
          } catch {
            // A deployment deleted meanwhile: its row goes with the next list refresh.
          }
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    };
    let timer: ReturnType<typeof setTimeout> | undefined;
    const loop = async () => {
      await fetchAll(due());
      if (!stopped) timer = setTimeout(loop, REFRESH_MS);
    };
    void loop();
    return () => {
      stopped = true;
      clearTimeout(timer);
      clearTimeout(flush);
    };
  }, [client, deployments]);
  return statuses;
}
