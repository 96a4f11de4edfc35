import { timingSafeEqual } from "node:crypto";
import type { FastifyInstance } from "fastify";

/** The header the control plane's proxy puts its per-deployment credential in. */
export const AGENT_TOKEN_HEADER = "x-berth-agent-token";

/**
 * Behind the control plane, an agent server answers only its proxy: every request but the health
 * check must carry the deployment's credential (another workspace's code on this machine can reach
 * the loopback port, but not this value). Registered before any route or custom auth.
 */
export function registerAgentToken(app: FastifyInstance, token: string): void {
  const expected = Buffer.from(token);
  app.addHook("onRequest", async (request, reply) => {
    if (request.method === "GET" && request.url.split("?")[0] === "/ok") return;
    const sent = request.headers[AGENT_TOKEN_HEADER];
    const given = Buffer.from(typeof sent === "string" ? sent : "");
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      return reply.code(403).send({
        detail: "This agent server answers its control plane's proxy only (/agents/{deployment_id}).",
      });
    }
  });
}
