import { z } from "zod";
import { MAX_NAME_BYTES } from "../domain/splits.js";
import { BadRequestError } from "../errors.js";
import type { ExampleInput, ExampleUpdate } from "../services/datasets.js";
import { parseMultipart } from "./multipart.js";
import { Uuid } from "./query.js";

/** A split name, or a list of them, as `split` in an example's part. */
export const SplitName = z
  .string()
  .min(1)
  .refine((s) => Buffer.byteLength(s) <= MAX_NAME_BYTES, `At most ${MAX_NAME_BYTES} bytes.`);
const Split = z.union([SplitName, z.array(SplitName).max(1000)]);

interface Parts {
  head?: Record<string, unknown>;
  inputs?: unknown;
  outputs?: unknown;
}

/**
 * The SDK's multipart examples body: per example, a part `<id>` (a JSON object of its fields),
 * `<id>.inputs` and `<id>.outputs`. Attachments (`<id>.attachment.<name>`,
 * `<id>.attachments_operations`) are refused: Berth does not store them.
 */
function partsOf(body: Buffer, boundary: string): Map<string, Parts> {
  const byId = new Map<string, Parts>();
  for (const part of parseMultipart(body, boundary)) {
    const [id = "", field, ...more] = part.name.split(".");
    const uuid = Uuid.safeParse(id);
    const known = field === undefined || field === "inputs" || field === "outputs";
    if (!uuid.success || more.length > 0 || !known) {
      throw new BadRequestError(
        `Unknown multipart part "${part.name.slice(0, 100)}" (attachments are not stored).`,
      );
    }
    let value: unknown;
    try {
      value = JSON.parse(part.data.toString("utf8"));
    } catch {
      throw new BadRequestError(`Part "${part.name.slice(0, 100)}" is not valid JSON.`);
    }
    const parts = byId.get(uuid.data) ?? {};
    byId.set(uuid.data, parts);
    if (field === "inputs") parts.inputs = value;
    else if (field === "outputs") parts.outputs = value;
    else if (typeof value === "object" && value !== null && !Array.isArray(value)) {
      parts.head = value as Record<string, unknown>;
    } else throw new BadRequestError(`Part "${part.name.slice(0, 100)}" must be a JSON object.`);
  }
  return byId;
}

function metadataOf(head: Record<string, unknown>): Record<string, unknown> | undefined {
  const metadata = head.metadata;
  if (metadata === undefined || metadata === null) return undefined;
  if (typeof metadata !== "object" || Array.isArray(metadata)) {
    throw new BadRequestError("An example's metadata must be a JSON object.");
  }
  return metadata as Record<string, unknown>;
}

function splitOf(head: Record<string, unknown>): string | string[] | undefined {
  if (head.split === undefined || head.split === null) return undefined;
  const split = Split.safeParse(head.split);
  if (!split.success) {
    throw new BadRequestError(`split must be a name or a list of names of 1 to ${MAX_NAME_BYTES} bytes.`);
  }
  return split.data;
}

/** Examples to create (`POST …/platform/datasets/{id}/examples`). */
export function examplesToCreate(body: Buffer, boundary: string): ExampleInput[] {
  return [...partsOf(body, boundary)].map(([id, parts]) => {
    const head = parts.head ?? {};
    const example: ExampleInput = { id, inputs: parts.inputs, outputs: parts.outputs };
    if (typeof head.created_at === "string") example.created_at = head.created_at;
    example.metadata = metadataOf(head);
    example.split = splitOf(head);
    if (typeof head.source_run_id === "string") {
      const run = Uuid.safeParse(head.source_run_id);
      if (!run.success) throw new BadRequestError("source_run_id must be a UUID.");
      example.source_run_id = run.data;
    }
    example.use_source_run_io = head.use_source_run_io === true;
    return example;
  });
}

/** Changes to examples (`PATCH …/platform/datasets/{id}/examples`). */
export function examplesToUpdate(body: Buffer, boundary: string): ExampleUpdate[] {
  return [...partsOf(body, boundary)].map(([id, parts]) => {
    const head = parts.head ?? {};
    return {
      id,
      inputs: parts.inputs,
      outputs: parts.outputs,
      metadata: metadataOf(head),
      split: splitOf(head),
    };
  });
}
