import { useCallback, useEffect, useRef, useState } from "preact/hooks";

/** The state of a value loaded asynchronously. */
export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload(): void;
}

/** Loads `load()` when `deps` change; `reload()` runs it again (stale answers are dropped). */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data: T | undefined; error: unknown; loading: boolean }>({
    data: undefined,
    error: undefined,
    loading: true,
  });
  const generation = useRef(0);
  const run = useCallback(() => {
    const mine = ++generation.current;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => mine === generation.current && setState({ data, error: undefined, loading: false }),
      (error) => mine === generation.current && setState((s) => ({ data: s.data, error, loading: false })),
    );
  }, deps);
  useEffect(() => {
    run();
    return () => {
      generation.current++;
    };
  }, [run]);
  return { ...state, reload: run };
}

/** Calls `tick` every `ms` while `active` (and once the page is visible again). */
export function useInterval(tick: () => void, ms: number, active = true): void {
  const latest = useRef(tick);
  latest.current = tick;
  useEffect(() => {
    if (!active) return;
    const id = setInterval(() => {
      if (document.visibilityState === "visible") latest.current();
    }, ms);
    return () => clearInterval(id);
  }, [ms, active]);
}
