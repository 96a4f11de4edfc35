// /docs as one server-rendered page: every operation of the three APIs grouped by tag, each a
// <details> that opens on a click with its parameters, request body and responses. No script:
// interactive as soon as the HTML has arrived (swagger-ui's 1.7 MB bundle took seconds of CPU to
// start on a loaded 2-core machine); swagger-ui stays at /docs/swagger for trying requests.
import type { OpenApiDocument } from "./api-documents.js";

const METHODS = ["get", "post", "put", "patch", "delete", "head", "options"];

function html(text: unknown): string {
  return String(text ?? "")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;");
}

function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");
}

type Operation = {
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: { name?: string; in?: string; required?: boolean; description?: string; schema?: unknown }[];
  requestBody?: { content?: Record<string, { schema?: unknown }> };
  responses?: Record<string, { description?: string; content?: Record<string, { schema?: unknown }> }>;
};

/** A JSON schema as a one-line type ("string (uuid)", "array of object", "a | b"). */
function typeOf(schema: unknown): string {
  const s = (schema ?? {}) as Record<string, unknown>;
  if (Array.isArray(s.enum)) return s.enum.map((v) => JSON.stringify(v)).join(" | ");
  if (Array.isArray(s.anyOf)) return s.anyOf.map(typeOf).join(" | ");
  if (Array.isArray(s.oneOf)) return s.oneOf.map(typeOf).join(" | ");
  const type = Array.isArray(s.type) ? s.type.join(" | ") : String(s.type ?? "any");
  if (type === "array") return `array of ${typeOf(s.items)}`;
  return s.format ? `${type} (${String(s.format)})` : type;
}

function schemaBlock(schema: unknown): string {
  return `<pre>${html(JSON.stringify(schema, null, 2))}</pre>`;
}

function operationHtml(method: string, path: string, op: Operation): string {
  const id = `op-${method}-${slug(path)}`;
  const parts: string[] = [];
  if (op.description) parts.push(`<p>${html(op.description)}</p>`);
  if (op.parameters?.length) {
    const rows = op.parameters
      .map(
        (p) =>
          `<tr><td><code>${html(p.name)}</code>${p.required ? " *" : ""}</td><td>${html(p.in)}</td><td>${html(typeOf(p.schema))}</td><td>${html(p.description)}</td></tr>`,
      )
      .join("");
    parts.push(
      `<h4>Parameters</h4><table><thead><tr><th>name</th><th>in</th><th>type</th><th></th></tr></thead><tbody>${rows}</tbody></table>`,
    );
  }
  for (const [type, body] of Object.entries(op.requestBody?.content ?? {})) {
    parts.push(`<h4>Request body <small>${html(type)}</small></h4>${schemaBlock(body.schema)}`);
  }
  const responses = Object.entries(op.responses ?? {});
  if (responses.length) {
    parts.push("<h4>Responses</h4>");
    for (const [code, response] of responses) {
      const content = Object.entries(response.content ?? {});
      parts.push(
        `<p><b>${html(code)}</b> ${html(response.description)}</p>${content.map(([, c]) => schemaBlock(c.schema)).join("")}`,
      );
    }
  }
  return `<details class="op" id="${html(id)}" data-method="${method}" data-path="${html(path)}"><summary><span class="method ${method}">${method.toUpperCase()}</span> <code class="path">${html(path)}</code> <span class="summary">${html(op.summary)}</span></summary><div class="body">${parts.join("") || "<p>No parameters.</p>"}</div></details>`;
}

/** The whole reference page of a merged document. */
export function referencePage(document: OpenApiDocument): string {
  const byTag = new Map<string, string[]>();
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const [method, op] of Object.entries(item)) {
      if (!METHODS.includes(method)) continue;
      const tag = (op as Operation).tags?.[0] ?? "other";
      const list = byTag.get(tag) ?? [];
      list.push(operationHtml(method, path, op as Operation));
      byTag.set(tag, list);
    }
  }
  const described = new Map((document.tags ?? []).map((t) => [t.name, t.description]));
  const group = (tag: string) =>
    tag.startsWith("Agent: ") ? "agent" : tag.startsWith("Tracing: ") ? "tracing" : "control";
  const groups: [string, string][] = [
    ["control", "Control plane"],
    ["agent", "Agent server (/agents/{deployment_id})"],
    ["tracing", "Tracing (LangSmith-compatible)"],
  ];
  const nav = groups
    .map(([key, title]) => {
      const tags = [...byTag.keys()].filter((t) => group(t) === key);
      if (!tags.length) return "";
      return `<li>${html(title)}<ul>${tags.map((t) => `<li><a href="#${slug(t)}">${html(t)}</a> <small>${byTag.get(t)?.length}</small></li>`).join("")}</ul></li>`;
    })
    .join("");
  const sections = [...byTag.entries()]
    .map(
      ([tag, ops]) =>
        `<section class="tag" id="${slug(tag)}" data-tag="${html(tag)}"><h2>${html(tag)}</h2>${described.get(tag) ? `<p class="muted">${html(described.get(tag))}</p>` : ""}${ops.join("")}</section>`,
    )
    .join("");
  const info = (document.info ?? {}) as { title?: string; version?: string; description?: string };
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Berth API reference</title><link rel="icon" type="image/png" href="/docs/static/favicon-32x32.png">
<style>
body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1d2433;display:flex;min-height:100vh}
nav{width:260px;flex:none;padding:1rem;border-right:1px solid #e4e7ec;position:sticky;top:0;height:100vh;overflow:auto;box-sizing:border-box;font-size:14px}
nav ul{list-style:none;padding-left:.6rem;margin:.2rem 0 .6rem}nav>ul{padding:0}
main{flex:1;min-width:0;padding:1rem 1.5rem;max-width:1100px}
a{color:#2451c6}.muted,small{color:#667085}
details.op{border:1px solid #e4e7ec;border-radius:6px;margin:.35rem 0;background:#fff}
details.op[open]{border-color:#98a2b3}
summary{cursor:pointer;padding:.4rem .6rem;display:flex;gap:.6rem;align-items:baseline;flex-wrap:wrap}
.method{font:600 12px monospace;padding:.1rem .4rem;border-radius:4px;color:#fff;background:#667085;min-width:3.5rem;text-align:center}
.method.get{background:#2e7d32}.method.post{background:#2451c6}.method.put,.method.patch{background:#b26a00}.method.delete{background:#c62828}
.path{font-size:14px;overflow-wrap:anywhere}.summary{color:#475467}
.body{padding:.2rem .9rem .8rem;border-top:1px solid #e4e7ec}
pre{background:#f6f8fa;padding:.6rem;border-radius:4px;overflow:auto;max-height:28rem;font-size:12px}
table{border-collapse:collapse;font-size:13px}td,th{border-bottom:1px solid #eaecf0;padding:.25rem .6rem;text-align:left;vertical-align:top}
h2{margin-top:1.8rem}h4{margin:.8rem 0 .3rem}
@media (max-width:720px){body{display:block}nav{position:static;width:auto;height:auto;border-right:0;border-bottom:1px solid #e4e7ec}}
</style></head>
<body><nav><b>${html(info.title)} ${html(info.version)}</b><ul>${nav}</ul>
<p><a href="/docs/swagger">Swagger UI</a> (to try requests)<br><a href="/docs/json">/docs/json</a> (this document)<br><a href="/openapi.json">/openapi.json</a> (control plane only)</p></nav>
<main><h1>Berth API reference</h1><p>${html(info.description)}</p>${sections}</main></body></html>
`;
}
