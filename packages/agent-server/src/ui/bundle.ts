/** One file of a bundled UI (the entry script, its stylesheet, assets). */
export interface UiFile {
  basename: string;
  contents: Uint8Array;
}

/** The bundled generative UI of a project, by UI name (graph.json `ui`). */
export type UiBundles = ReadonlyMap<string, readonly UiFile[]>;

type BuildUi = (
  name: string,
  args: { cwd: string; userPath: string; config?: { shared?: string[] } },
) => Promise<UiFile[]>;

/**
 * Bundles every UI of a project with the official JS server's bundler (`@langchain/langgraph-ui`:
 * esbuild for the browser, React and the SDK left to the host page, Tailwind CSS, the same render
 * entry and global name), so Studio and `LoadExternalComponent` load them as they would from the
 * official server. A UI that fails to bundle is reported and the others are served.
 */
export async function bundleProjectUi(
  projectDir: string,
  ui: Readonly<Record<string, string>>,
  shared: readonly string[],
  onError: (name: string, error: unknown) => void,
): Promise<UiBundles> {
  const bundles = new Map<string, UiFile[]>();
  if (Object.keys(ui).length === 0) return bundles;
  // Not in the package's exports list (it has none): the bundler module itself.
  const { build } = (await import("@langchain/langgraph-ui/dist/bundler.mjs" as string)) as {
    build: BuildUi;
  };
  for (const [name, userPath] of Object.entries(ui)) {
    try {
      bundles.set(name, await build(name, { cwd: projectDir, userPath, config: { shared: [...shared] } }));
    } catch (error) {
      onError(name, error);
    }
  }
  return bundles;
}
