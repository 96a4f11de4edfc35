export { embeddedIpv4, ipv6Bytes, PrivateAddressGuard } from "./address-policy.js";
export { ApiError } from "./api-error.js";
export { DataDirBusyError, type DataDirLock, lockDataDir, waitForDataDirLock } from "./data-dir-lock.js";
export {
  capConnections,
  type HttpLimits,
  httpLimitOptions,
  jsonDepthExceeds,
  MAX_JSON_DEPTH,
  type ServiceAppOptions,
  serviceApp,
} from "./http-limits.js";
export { type ListenOptions, listenWithFallback } from "./listen.js";
export { migrateToLatest } from "./migrations.js";
export { NUL_TEXT_MESSAGE, NulGuardPlugin } from "./nul-guard.js";
export { STREAM_APPEND_SCRIPT, STREAM_APPEND_SHA } from "./redis-scripts.js";
export { postgresDialect, type SqlDialect, sqliteDialect } from "./sql-dialect.js";
export { immediateTransactions, openSqliteFile } from "./sqlite.js";
export { SharedFileSqliteDialect, SqliteFileDialect } from "./sqlite-busy-retry.js";
export { cacheStatements } from "./statement-cache.js";
export { type StorageFault, storageFault } from "./storage-faults.js";
export {
  BACKGROUND_AUTOCHECKPOINT_PAGES,
  startWalCheckpoints,
  type WalCheckpoints,
} from "./wal-checkpoints.js";
