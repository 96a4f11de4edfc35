export { DataDirBusyError, type DataDirLock, lockDataDir, waitForDataDirLock } from "./data-dir-lock.js";
export { type ListenOptions, listenWithFallback } from "./listen.js";
export { migrateToLatest, openSqliteFile } from "./sqlite.js";
export { cacheStatements } from "./statement-cache.js";
