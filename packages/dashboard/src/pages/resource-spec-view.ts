/**
 * A deployment's resource spec as the user set it: the API answers fields left to their defaults
 * (limits, the queue's sizes) as null, so they are left out here and a note says what they follow.
 */
export function declaredSpec(spec: Record<string, unknown> | null): Record<string, unknown> | null {
  if (spec === null) return null;
  return Object.fromEntries(Object.entries(spec).filter(([, value]) => value !== null));
}

/** What the fields left out follow (the spec's table of defaults). */
export const SPEC_DEFAULTS_NOTE =
  "Fields not shown take their defaults: most limits are twice their requests, and the queue's scale, CPU and memory follow the API's.";
