export { repoRoot } from "./paths.js";
export { type SpawnedServer, spawnBerth } from "./spawn.js";
export { makeTempDir } from "./temp.js";
