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
 */
function createModel(): BaseChatModel {
  const apiKey = process.env.OPENAI_API_KEY;
  if (!apiKey) return new ScriptedChatModel();
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
