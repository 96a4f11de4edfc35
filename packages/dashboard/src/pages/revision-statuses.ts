import { useEffect, useRef, useState } from "preact/hooks";
import type { ControlPlaneClient } from "../api/control-plane.js";
import type { Deployment } from "../api/types.js";
import { isSettled } from "../format.js";

/** Ids per batched status read (the API takes up to 100). */
const BATCH = 100;
const REFRESH_MS = 2000;

/**
 * The latest revision's status of each listed deployment: read 100 deployments a request (the list
 * API has no revision status), refreshed while not settled, applied to the page once per read so
 * 500 rows do not re-render 500 times.
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
      for (let at = 0; at < list.length && !stopped; at += BATCH) {
        const ids = list.slice(at, at + BATCH).map((d) => d.id);
        try {
          const { resources } = await client.latestRevisionStatuses(ids);
          for (const r of resources) {
            known.current.set(r.deployment_id, { revision: r.revision_id, status: r.status });
          }
          publish();
        } catch {
          // A failed read is tried again with the next refresh.
        }
      }
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
