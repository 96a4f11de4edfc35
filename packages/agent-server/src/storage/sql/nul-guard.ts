import type {
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from "kysely";
import { ValidationError } from "../../errors.js";

/**
 * Refuses (422) a query carrying a NUL character in any text: PostgreSQL cannot hold one in a text
 * column (SQLSTATE 22021, an unexpected 500). JSON columns are unaffected (JSON escapes it).
 */
export class NulGuardPlugin implements KyselyPlugin {
  transformQuery({ node }: PluginTransformQueryArgs): RootOperationNode {
    if (holdsNul(node)) throw new ValidationError("Text must not contain NUL characters.");
    return node;
  }

  async transformResult({ result }: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return result;
  }
}

function holdsNul(value: unknown): boolean {
  if (typeof value === "string") return value.includes("\u0000");
  if (Array.isArray(value)) return value.some(holdsNul);
  if (value !== null && typeof value === "object") return Object.values(value).some(holdsNul);
  return false;
}
