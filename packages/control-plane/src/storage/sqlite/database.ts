import {
  migrateToLatest,
  NulGuardPlugin,
  openSqliteFile,
  SqliteFileDialect,
} from "@berth-platform/server-kit";
import { Kysely } from "kysely";
import { BadRequestError } from "../../errors.js";
import { migrationsFor } from "../sql/migrations.js";
import type { ControlPlaneDb } from "../sql/schema.js";
import { sqliteDialect } from "./dialect.js";

/** Opens (creating if needed) the control plane's SQLite file and brings its schema up to date. */
export async function openSqliteDatabase(file: string): Promise<Kysely<ControlPlaneDb>> {
  const db = new Kysely<ControlPlaneDb>({
    dialect: new SqliteFileDialect(openSqliteFile(file)),
    plugins: [new NulGuardPlugin((message) => new BadRequestError(message))],
  });
  await migrateToLatest(db, migrationsFor(sqliteDialect));
  return db;
}
