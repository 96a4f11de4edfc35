import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";

/** One node that answers every message with its own text: the smallest useful graph (benchmarks). */
export const graph = new StateGraph(MessagesAnnotation)
  .addNode("echo", (state: typeof MessagesAnnotation.State) => {
    const last: BaseMessage | undefined = state.messages[state.messages.length - 1];
    const text = typeof last?.content === "string" ? last.content : JSON.stringify(last?.content ?? "");
    return { messages: [new AIMessage({ content: text })] };
  })
  .addEdge(START, "echo")
  .compile();
