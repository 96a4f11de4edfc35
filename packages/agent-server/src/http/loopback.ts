import { AGENT_TOKEN_HEADER } from "./agent-token.js";

/** A fetch that reaches this server itself (paths resolve against its own address). */
export type LoopbackFetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** Where the official SDK looks for a default fetch and URL when a `Client` is made with no `apiUrl`. */
const SDK_FETCH = Symbol.for("langgraph_api:fetch");
const SDK_URL = Symbol.for("langgraph_api:url");

/**
 * The address this server reaches itself at: a wildcard listen address (0.0.0.0, ::) is not one a
 * client can connect to, so it becomes the loopback address of its family.
 */
export function selfBaseUrl(listenUrl: string): string {
  const url = new URL(listenUrl);
  if (url.hostname === "0.0.0.0") url.hostname = "127.0.0.1";
  else if (url.hostname === "[::]") url.hostname = "[::1]";
  return url.origin;
}

/**
 * Requests the server sends to itself: graph code's SDK clients made with no `apiUrl`, the project's
 * routes calling the SDK, webhooks that name a path ("/custom/hook"). The official JS server serves
 * these in process through its own app; Berth sends them to its own listening socket, so they go
 * through exactly what any request goes through (the project's `http.app`, custom auth, limits,
 * streaming). Behind the control plane the agent-token check would refuse them, so the server's own
 * credential is added, to requests for its own origin only.
 */
export class Loopback {
  private base: string | undefined;

  constructor(private readonly agentToken: string | null) {}

  /** Set once the server listens. */
  bind(listenUrl: string): void {
    this.base = selfBaseUrl(listenUrl);
  }

  /** The server's own base URL (what `new Client()` in graph code talks to). */
  get url(): string {
    if (!this.base) throw new Error("The server is not listening yet");
    return this.base;
  }

  /** fetch() for a path of this server or a URL (only URLs of this server get the credential). */
  readonly fetch: LoopbackFetch = (input, init) => {
    const base = this.url;
    const request = new Request(
      typeof input === "string" || input instanceof URL ? new URL(input, base) : input,
      init,
    );
    if (this.agentToken && new URL(request.url).origin === base) {
      request.headers.set(AGENT_TOKEN_HEADER, this.agentToken);
    }
    return fetch(request);
  };

  /**
   * Makes `new Client()` of the official SDK (any copy: the symbols are global) reach this server,
   * as the official server does for the graphs it runs. Returns the undo.
   */
  installSdkDefaults(): () => void {
    const slots = globalThis as unknown as Record<symbol, unknown>;
    const before = { fetch: slots[SDK_FETCH], url: slots[SDK_URL] };
    slots[SDK_FETCH] = this.fetch;
    slots[SDK_URL] = this.url;
    return () => {
      // Only what is still ours is undone (another server in this process may have set its own since).
      if (slots[SDK_FETCH] === this.fetch) slots[SDK_FETCH] = before.fetch;
      if (slots[SDK_URL] === this.base) slots[SDK_URL] = before.url;
    };
  }
}
