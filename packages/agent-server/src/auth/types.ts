/** The user a custom `authenticate` handler returned, normalised. */
export interface AuthUser {
  identity: string;
  display_name: string;
  is_authenticated: boolean;
  permissions: string[];
  [key: string]: unknown;
}

/** Filters an authorization handler returns: metadata keys with a value, `$eq` or `$contains`. */
export type AuthFilters = Record<string, unknown>;

/** An authorization event, `resource:action` (threads:read, store:put…). */
export type AuthEvent = `${string}:${string}`;
