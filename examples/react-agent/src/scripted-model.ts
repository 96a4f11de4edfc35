import { setTimeout as sleep } from "node:timers/promises";
import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import { BaseChatModel, type BaseChatModelParams } from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage, ToolMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";

/**
 * A chat model that needs no network: it picks a tool from the last human message, then answers
 * from the tool's result. One human message therefore always yields ai (tool call) → tool → ai,
 * which makes the example usable offline and in tests.
 */
export class ScriptedChatModel extends BaseChatModel {
  private callCounter = 0;
  /** How long each call waits before it answers, like a hosted model's round trip (benchmarks). */
  private readonly latencyMs: number;

  constructor(params: BaseChatModelParams & { latencyMs?: number } = {}) {
    super(params);
    this.latencyMs = params.latencyMs ?? 0;
  }

  _llmType(): string {
    return "berth-scripted";
  }

  async _generate(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    _runManager?: CallbackManagerForLLMRun,
  ): Promise<ChatResult> {
    if (this.latencyMs > 0) await sleep(this.latencyMs, undefined, { signal: options.signal });
    const last = messages[messages.length - 1];
    const inputTokens = messages.reduce((n, m) => n + countTokens(textOf(m)), 0);
    let message: AIMessage;
    if (last instanceof ToolMessage || last?.getType() === "tool") {
      const content = `Here is what I found: ${textOf(last)}`;
      message = new AIMessage({ content, usage_metadata: usage(inputTokens, countTokens(content)) });
    } else {
      const question = last ? textOf(last) : "";
      const call = chooseToolCall(question);
      this.callCounter += 1;
      message = new AIMessage({
        content: "",
        tool_calls: [
          { ...call, id: `call_${Date.now().toString(36)}_${this.callCounter}`, type: "tool_call" },
        ],
        usage_metadata: usage(inputTokens, countTokens(JSON.stringify(call.args))),
      });
    }
    return { generations: [{ text: typeof message.content === "string" ? message.content : "", message }] };
  }
}

function chooseToolCall(question: string): { name: string; args: Record<string, string> } {
  const arithmetic = question.match(/[\d(][\d\s.+\-*/()]*[\d)]/);
  if (arithmetic && /[+\-*/]/.test(arithmetic[0])) {
    return { name: "calculator", args: { expression: arithmetic[0].trim() } };
  }
  if (/weather|temperature|forecast/i.test(question)) {
    const city = question.match(/\b(?:in|for|at)\s+([A-Z][\p{L}-]*(?:\s+[A-Z][\p{L}-]*)*)/u)?.[1] ?? "Paris";
    return { name: "get_weather", args: { city } };
  }
  return { name: "word_count", args: { text: question } };
}

function textOf(message: BaseMessage): string {
  if (typeof message.content === "string") return message.content;
  return message.content
    .map((block) => ("text" in block && typeof block.text === "string" ? block.text : ""))
    .join("");
}

function countTokens(text: string): number {
  return text.trim() === "" ? 0 : text.trim().split(/\s+/).length;
}

function usage(input: number, output: number) {
  return { input_tokens: input, output_tokens: output, total_tokens: input + output };
}
