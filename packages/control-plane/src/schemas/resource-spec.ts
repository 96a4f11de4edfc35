import { z } from "zod";
import { Container, Labels, LocalObjectReference, Volume, VolumeMount } from "./kubernetes.js";

const cpu = z.number().min(0.1).max(8).nullish();
const cpuLimit = z.number().min(0.1).max(16).nullish();
// Self-hosted has no SaaS caps on these; the bounds only keep values sane (1 TiB, 1000 replicas).
const memoryMb = z.number().int().min(1).max(1_048_576).nullish();
const scale = z.number().int().min(0).max(1000).nullish();
const anyCpu = z.number().min(0).max(1024).nullish();

/** ResourceSpec as sent by clients; every field optional and nullable (`cache_*` is canonical). */
export const ResourceSpecInput = z.object({
  min_scale: scale,
  max_scale: scale,
  cpu,
  cpu_limit: cpuLimit,
  memory_mb: memoryMb,
  memory_limit_mb: memoryMb,
  queue_min_scale: scale,
  queue_max_scale: scale,
  queue_cpu: cpu,
  queue_cpu_limit: cpuLimit,
  queue_memory_mb: memoryMb,
  queue_memory_limit_mb: memoryMb,
  cache_cpu: cpu,
  cache_cpu_limit: cpuLimit,
  cache_memory_mb: memoryMb,
  cache_memory_limit_mb: memoryMb,
  db_cpu: anyCpu,
  db_cpu_limit: anyCpu,
  db_memory_mb: memoryMb,
  db_memory_limit_mb: memoryMb,
  db_storage_gi: z.number().int().min(1).max(65_536).nullish(),
  db_max_connections: z.number().int().min(1).max(100_000).nullish(),
  labels: Labels.nullish(),
  annotations: Labels.nullish(),
  service_account_name: z.string().min(1).max(253).nullish(),
  image_pull_secrets: z.array(LocalObjectReference).max(32).nullish(),
  volumes: z.array(Volume).max(64).nullish(),
  volume_mounts: z.array(VolumeMount).max(64).nullish(),
  init_containers: z.array(Container).max(16).nullish(),
  sidecars: z.array(Container).max(16).nullish(),
  // Marked "do not use" by the service; accepted and stored so existing configurations round-trip.
  orchestrator_cpu: anyCpu,
  orchestrator_cpu_limit: anyCpu,
  orchestrator_memory_mb: memoryMb,
  orchestrator_memory_limit_mb: memoryMb,
  orchestrator_min_scale: scale,
  orchestrator_max_scale: scale,
  executor_cpu: anyCpu,
  executor_cpu_limit: anyCpu,
  executor_memory_mb: memoryMb,
  executor_memory_limit_mb: memoryMb,
});

/** A ResourceSpec as validated from the wire (before defaults). */
export type ResourceSpecInput = z.output<typeof ResourceSpecInput>;
