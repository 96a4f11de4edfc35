import { AIMessage } from "@langchain/core/messages";
import { END, interrupt, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";

/**
 * Human in the loop: the graph drafts a reply, then stops with `interrupt()` until a person answers
 * "approve" or sends a replacement text (resume the run with `command: {resume: ...}`).
 */
export const graph = new StateGraph(MessagesAnnotation)
  .addNode("draft", (state: typeof MessagesAnnotation.State) => {
    const last = state.messages[state.messages.length - 1];
    const topic = typeof last?.content === "string" ? last.content : "your request";
    return {
      messages: [
        new AIMessage({ content: `Draft reply about: ${topic}`, id: `draft-${state.messages.length}` }),
      ],
    };
  })
  .addNode("review", (state: typeof MessagesAnnotation.State) => {
    const draft = state.messages[state.messages.length - 1];
    const answer = interrupt({
      question: "Approve this draft, or send a replacement text.",
      draft: draft?.content,
    });
    const approved = answer === "approve";
    return {
      messages: [
        new AIMessage(approved ? `Approved: ${String(draft?.content)}` : `Revised: ${String(answer)}`),
      ],
    };
  })
  .addEdge(START, "draft")
  .addEdge("draft", "review")
  .addEdge("review", END)
  .compile();
