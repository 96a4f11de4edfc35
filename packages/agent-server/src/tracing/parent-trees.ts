import { RunTree } from "langsmith/run_trees";
import { runMetadata } from "./encode.js";
import type { TracedRun } from "./run-book.js";

/**
 * RunTrees for recorded runs, for `traceable` code to start under. @langchain/core asks for one
 * each time a node's function starts (it puts it in async-local storage, where a `traceable` finds
 * its parent), so they are made without RunTree's constructor, which reads the environment and
 * resolves the client on each call (1.1 ms of CPU per agent run): an object of RunTree's prototype
 * with the fields of one tree made once (client, project, replicas…) and the run's own.
 */
export class ParentTrees {
  #template: Readonly<Record<string, unknown>> | undefined;

  constructor(private readonly project: string) {}

  of(run: TracedRun): RunTree {
    // Shared by the trees of one run: core replaces `extra` (never changes it), children read it.
    run.treeExtra ??= { ...run.extra, metadata: runMetadata(run) };
    const tree = Object.create(RunTree.prototype) as RunTree;
    Object.assign(tree, this.#fields(), {
      id: run.id,
      name: run.name,
      run_type: run.run_type,
      start_time: run.startMs,
      parent_run_id: run.parent_run_id,
      trace_id: run.trace_id,
      dotted_order: run.dotted_order,
      execution_order: run.execution_order,
      child_execution_order: run.group.order,
      inputs: run.inputs,
      serialized: run.serialized,
      tags: run.tags,
      extra: run.treeExtra,
      child_runs: [],
      events: [],
    });
    return tree;
  }

  /** The fields of a RunTree of this project, resolved once. */
  #fields(): Readonly<Record<string, unknown>> {
    this.#template ??= {
      ...new RunTree({ name: "template", project_name: this.project, tracingEnabled: true }),
    };
    return this.#template;
  }
}
