export { malformedBody, mutate, ODD_VALUES, pick, prng, type RouteInfo, routesOf } from "./fuzz.js";
export { type KubeBinaries, kubeBinaries } from "./kube-cluster/binaries.js";
export {
  isSkip,
  type KubeCluster,
  type KubeClusterOptions,
  type KubeObjectJson,
  startKubeCluster,
} from "./kube-cluster/cluster.js";
export { freePort } from "./kube-cluster/probes.js";
export { repoRoot } from "./paths.js";
export { listeningUrl, type SpawnedServer, spawnBerth } from "./spawn.js";
export { makeTarGz, packDirectory, type RawEntry } from "./tarball.js";
export { makeTempDir } from "./temp.js";
