import { useSession } from "../context.js";
import { useLoad } from "../hooks.js";

/**
 * "Open in Studio": LangGraph Studio (smith.langchain.com, or BERTH_STUDIO_URL) on this deployment.
 * Studio calls the agent from the browser and cannot send an API key, so the base URL it gets is
 * `/studio/<signed 12-hour grant>` on the address this dashboard is reached at (what the browser
 * can reach), minted when the page opens.
 */
export function StudioLink({ deploymentId }: { deploymentId: string }) {
  const { client } = useSession();
  const link = useLoad(() => client.studioLink(deploymentId), [client, deploymentId]);
  if (!link.data) return null;
  const url = new URL(link.data.studio_url);
  url.searchParams.set("baseUrl", `${location.origin}${link.data.base_path}`);
  return (
    <a
      id="open-in-studio"
      class="button small"
      href={url.toString()}
      target="_blank"
      rel="noopener noreferrer"
      title={`LangGraph Studio on this deployment; the link works until ${new Date(link.data.expires_at).toLocaleString()}`}
    >
      Open in Studio
    </a>
  );
}
