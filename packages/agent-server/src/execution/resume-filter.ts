import { toWire } from "../domain/serialize.js";
import type { RunnableGraph } from "../graphs/registry.js";
import { STREAM_EVENT_ID_KEY } from "../storage/checkpoint-metadata.js";
import type { RunStreamEvent, StreamBroker } from "../stream/types.js";

/**
 * What a run re-attempted after a crash must not send again (issue 27 item 8). It resumes from its
 * last checkpoint, which is stamped with the id of the last event kept before it; what the first
 * attempt sent after that id, LangGraph emits again: first the checkpoint's state as `values` (its
 * resume "echo"), then the writes of tasks that finished (as cached `updates`) and the events of
 * the steps it executes again. Those are matched by position and event name against the kept
 * events and dropped; from the first event that does not match, everything is sent.
 */
export class ResumeFilter {
  private next = 0;
  private echoPending = true;
  private sent = false;

  private constructor(
    private readonly kept: RunStreamEvent[],
    private readonly echo: string,
  ) {}

  /** The filter of a re-attempt, or undefined when the broker keeps no log or nothing is stamped. */
  static async open(
    graph: RunnableGraph,
    broker: StreamBroker,
    runId: string,
    threadId: string,
  ): Promise<ResumeFilter | undefined> {
    if (!broker.loggedAfter) return undefined;
    const snapshot = await graph.getState({ configurable: { thread_id: threadId } });
    const stamp = (snapshot.metadata as Record<string, unknown> | undefined)?.[STREAM_EVENT_ID_KEY];
    if (typeof stamp !== "number") return undefined;
    const kept = broker.loggedAfter(runId, stamp).filter((e) => e.event !== "metadata");
    return new ResumeFilter(kept, JSON.stringify(toWire(snapshot.values) ?? null));
  }

  /** Whether an event the re-attempt emits was already sent by the first attempt. */
  drops(event: string, data: unknown): boolean {
    if (this.echoPending && !this.sent && event === "values" && JSON.stringify(data) === this.echo) {
      this.echoPending = false;
      return true;
    }
    const expected = this.kept[this.next];
    if (expected !== undefined && expected.event === event) {
      this.next += 1;
      return true;
    }
    this.next = this.kept.length;
    this.sent = true;
    return false;
  }
}
