// Chat messages found in a traced run's inputs or outputs, in whatever shape the tracer wrote them:
// LangChain's serialized constructors (`{lc:1,type:"constructor",id:[…,"AIMessage"],kwargs}`),
// message dicts (`{type:"human",content}`, Python's `{type,data:{…}}`), OpenAI-style
// `{role,content}`, a chat model's `generations`, an OpenAI response's `choices`. Content is a
// string or a list of parts (text parts joined; other parts kept as they are).

export type Role = "human" | "ai" | "system" | "tool";

export interface ToolCall {
  id: string | null;
  name: string;
  args: unknown;
}

/** One message, whatever shape it came in. */
export interface ChatMessage {
  role: Role;
  /** The message's name (a tool message's tool, a named participant). */
  name: string | null;
  text: string;
  /** Non-text content parts (images, tool-use blocks…), shown as JSON. */
  parts: unknown[];
  toolCalls: ToolCall[];
  toolCallId: string | null;
}

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

const ROLES: Record<string, Role> = {
  human: "human",
  user: "human",
  humanmessage: "human",
  humanmessagechunk: "human",
  ai: "ai",
  assistant: "ai",
  aimessage: "ai",
  aimessagechunk: "ai",
  system: "system",
  developer: "system",
  systemmessage: "system",
  systemmessagechunk: "system",
  tool: "tool",
  function: "tool",
  toolmessage: "tool",
  toolmessagechunk: "tool",
  functionmessage: "tool",
  functionmessagechunk: "tool",
};

function roleOf(name: unknown): Role | undefined {
  return typeof name === "string" ? ROLES[name.toLowerCase()] : undefined;
}

/** Tool-call arguments: objects as they are, JSON text parsed when it parses. */
function argsOf(args: unknown): unknown {
  if (typeof args !== "string") return args ?? {};
  try {
    return JSON.parse(args);
  } catch {
    return args;
  }
}

function toolCallsOf(fields: Obj): ToolCall[] {
  const direct = fields.tool_calls;
  const openai = isObj(fields.additional_kwargs) ? fields.additional_kwargs.tool_calls : undefined;
  const list = Array.isArray(direct) && direct.length > 0 ? direct : Array.isArray(openai) ? openai : [];
  const calls: ToolCall[] = [];
  for (const c of list) {
    if (!isObj(c)) continue;
    const fn = isObj(c.function) ? c.function : null;
    const name = typeof c.name === "string" ? c.name : typeof fn?.name === "string" ? fn.name : "";
    calls.push({
      id: typeof c.id === "string" ? c.id : null,
      name,
      args: argsOf(fn ? fn.arguments : c.args),
    });
  }
  return calls;
}

function contentOf(content: unknown): { text: string; parts: unknown[]; calls: ToolCall[] } {
  if (typeof content === "string") return { text: content, parts: [], calls: [] };
  if (!Array.isArray(content)) {
    return content === undefined || content === null
      ? { text: "", parts: [], calls: [] }
      : { text: "", parts: [content], calls: [] };
  }
  const texts: string[] = [];
  const parts: unknown[] = [];
  const calls: ToolCall[] = [];
  for (const part of content) {
    if (typeof part === "string") texts.push(part);
    else if (
      isObj(part) &&
      (part.type === "text" || part.type === "output_text") &&
      typeof part.text === "string"
    )
      texts.push(part.text);
    else if (isObj(part) && part.type === "tool_use" && typeof part.name === "string")
      // Anthropic's tool-use block: the same call the message's tool_calls usually repeat.
      calls.push({
        id: typeof part.id === "string" ? part.id : null,
        name: part.name,
        args: part.input ?? {},
      });
    else parts.push(part);
  }
  return { text: texts.join(""), parts, calls };
}

function build(role: Role, fields: Obj): ChatMessage {
  const { text, parts, calls } = contentOf(fields.content);
  const toolCalls = toolCallsOf(fields);
  for (const c of calls) if (!toolCalls.some((t) => t.id !== null && t.id === c.id)) toolCalls.push(c);
  return {
    role,
    name: typeof fields.name === "string" && fields.name !== "" ? fields.name : null,
    text,
    parts,
    toolCalls,
    toolCallId: typeof fields.tool_call_id === "string" ? fields.tool_call_id : null,
  };
}

/** One message in any of the known shapes, else null. */
export function messageOf(value: unknown): ChatMessage | null {
  if (!isObj(value)) return null;
  // LangChain's serialized form: the class name is the id's last element.
  if (value.lc === 1 && value.type === "constructor" && Array.isArray(value.id) && isObj(value.kwargs)) {
    const cls = value.id[value.id.length - 1];
    const kwargs = value.kwargs;
    const role =
      roleOf(cls) ?? (cls === "ChatMessage" || cls === "ChatMessageChunk" ? roleOf(kwargs.role) : undefined);
    return role ? build(role, kwargs) : null;
  }
  // Python's message_to_dict: {type, data: {content, …}}.
  if (typeof value.type === "string" && isObj(value.data) && "content" in value.data) {
    const role = roleOf(value.type);
    return role ? build(role, value.data) : null;
  }
  if (!("content" in value) && !Array.isArray(value.tool_calls)) return null;
  const role = roleOf(value.role) ?? roleOf(value.type) ?? roleOf(value._getType);
  return role ? build(role, value) : null;
}

/** Every element a message, or null (an empty list is not a conversation). */
function listOf(values: unknown[]): ChatMessage[] | null {
  if (values.length === 0) return null;
  const out: ChatMessage[] = [];
  for (const v of values) {
    const m = messageOf(v);
    if (!m) return null;
    out.push(m);
  }
  return out;
}

/**
 * The conversation a run's inputs or outputs hold, or null when they hold none: `messages`
 * (a list, or a chat model's list of lists), a chat model's `generations`, OpenAI `choices`, a
 * tool's `output` message, a bare list of messages or a single message.
 */
export function conversationOf(value: unknown): ChatMessage[] | null {
  if (Array.isArray(value)) return listOf(value.flat(1));
  if (!isObj(value)) return null;
  const single = messageOf(value);
  if (single) return [single];
  if (Array.isArray(value.messages)) {
    const found = listOf(value.messages.flat(1));
    if (found) return found;
  }
  if (Array.isArray(value.generations)) {
    const gens = value.generations.flat(2).filter(isObj);
    const found = listOf(
      gens.map((g) => (g.message !== undefined ? g.message : { type: "ai", content: g.text ?? "" })),
    );
    if (found) return found;
  }
  if (Array.isArray(value.choices)) {
    const found = listOf(value.choices.filter(isObj).map((c) => c.message));
    if (found) return found;
  }
  for (const key of ["output", "input"]) {
    const m = messageOf(value[key]);
    if (m) return [m];
  }
  return null;
}
