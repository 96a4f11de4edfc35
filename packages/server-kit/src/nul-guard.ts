import type {
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from "kysely";

/** The message both services give when a text holds a NUL character. */
export const NUL_TEXT_MESSAGE = "Text must not contain NUL characters.";

/**
 * Refuses a query carrying a NUL character in any text: PostgreSQL cannot hold one in a text
 * column (SQLSTATE 22021, an unexpected 500), so both dialects refuse it alike rather than SQLite
 * alone storing it. JSON columns are unaffected (JSON escapes it). Each service throws its own
 * domain error (`refuse`), which its one HTTP mapping renders in that API's shape.
 */
export class NulGuardPlugin implements KyselyPlugin {
  constructor(private readonly refuse: (message: string) => Error) {}

  transformQuery({ node }: PluginTransformQueryArgs): RootOperationNode {
    if (holdsNul(node)) throw this.refuse(NUL_TEXT_MESSAGE);
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
