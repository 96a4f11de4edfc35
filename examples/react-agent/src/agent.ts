import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage } from "@langchain/core/messages";
import { END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { ToolNode } from "@langchain/langgraph/prebuilt";
import { ChatOpenAI } from "@langchain/openai";
import { ScriptedChatModel } from "./scripted-model.js";
import { tools } from "./tools.js";

/**
 * The model: the offline scripted model unless OPENAI_API_KEY is set, in which case a real OpenAI
 * chat model (BERTH_EXAMPLE_MODEL, default gpt-4o-mini; OPENAI_BASE_URL for compatible servers).
 * BERTH_EXAMPLE_MODEL_LATENCY_MS makes the scripted model take that long per call (benchmarks).
 */
function createModel(): BaseChatModel {
  const apiKey = process.env.OPENAI_API_KEY;
  if (!apiKey) {
    const latencyMs = Number(process.env.BERTH_EXAMPLE_MODEL_LATENCY_MS ?? 0);
    return new ScriptedChatModel({ latencyMs: Number.isFinite(latencyMs) && latencyMs > 0 ? latencyMs : 0 });
  }
  return new ChatOpenAI({
    apiKey,
    model: process.env.BERTH_EXAMPLE_MODEL ?? "gpt-4o-mini",
    configuration: process.env.OPENAI_BASE_URL ? { baseURL: process.env.OPENAI_BASE_URL } : undefined,
  });
}

const model = createModel();
const modelWithTools = model.bindTools ? model.bindTools(tools) : model;

async function callModel(state: typeof MessagesAnnotation.State) {
  const response = await modelWithTools.invoke(state.messages);
  return { messages: [response] };
}

function routeAfterModel(state: typeof MessagesAnnotation.State): "tools" | typeof END {
  const last = state.messages[state.messages.length - 1];
  return last instanceof AIMessage && (last.tool_calls?.length ?? 0) > 0 ? "tools" : END;
}

/** The ReAct loop: model → tools → model until the model answers without a tool call. */
export const graph = new StateGraph(MessagesAnnotation)
  .addNode("agent", callModel)
  .addNode("tools", new ToolNode(tools))
  .addEdge(START, "agent")
  .addConditionalEdges("agent", routeAfterModel, ["tools", END])
  .addEdge("tools", "agent")
  .compile();

graph.name = "react-agent";
