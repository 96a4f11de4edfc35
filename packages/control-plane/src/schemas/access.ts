import { z } from "zod";

/** `POST /api/v1/workspaces`. */
export const WorkspaceCreateRequest = z.strictObject({
  display_name: z.string().trim().min(1).max(128),
});

/** A workspace as returned. */
export const WorkspaceOut = z.object({
  id: z.string(),
  display_name: z.string(),
  created_at: z.string(),
});

/** `POST /api/v1/api-key`. */
export const ApiKeyCreateRequest = z.strictObject({
  description: z.string().max(256).optional(),
  role: z.enum(["admin", "member"]).default("member"),
  workspace_ids: z.array(z.uuid()).min(1).max(100).optional(),
  expires_in_days: z.number().int().min(1).max(3650).optional(),
});

/** An API key as listed (never the key itself). */
export const ApiKeyOut = z.object({
  id: z.string(),
  short_key: z.string().nullable(),
  description: z.string().nullable(),
  role: z.enum(["admin", "member"]),
  workspace_ids: z.array(z.string()),
  created_at: z.string(),
  expires_at: z.string().nullable(),
  last_used_at: z.string().nullable(),
});

/** A key just created: the listed fields and, this once, `key`. */
export const ApiKeyCreatedOut = ApiKeyOut.extend({ key: z.string() });
