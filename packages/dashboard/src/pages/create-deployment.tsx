import { useState } from "preact/hooks";
import type { ControlPlaneClient } from "../api/control-plane.js";
import { ApiError } from "../api/errors.js";
import type { Deployment } from "../api/types.js";
import { ErrorBox, Field } from "../components/ui.js";
import { useSession } from "../context.js";
import { useLoad } from "../hooks.js";
import { navigate } from "../router.js";
import { parseSecrets } from "./secrets-text.js";

type Kind = "template" | "upload" | "git";

interface Form {
  name: string;
  templateId: string;
  archive: File | null;
  graphConfigPath: string;
  repoUrl: string;
  repoRef: string;
  buildOnPush: boolean;
  installCommand: string;
  secrets: string;
}

/** The archive flow of the official CLIs: create, mint an upload URL, PUT the archive, PATCH it in. */
async function createFromArchive(client: ControlPlaneClient, form: Form, base: object): Promise<Deployment> {
  if (!form.archive) throw new ApiError(400, "archive: choose a .tar.gz of the project");
  const created = await client.createDeployment({
    ...base,
    source: "internal_source",
    source_config: form.installCommand ? { install_command: form.installCommand } : {},
    source_revision_config: {},
  });
  const { upload_url, object_path } = await client.uploadUrl(created.id);
  await client.upload(upload_url, form.archive);
  return client.patchDeployment(created.id, {
    source_revision_config: {
      source_tarball_path: object_path,
      graph_config_path: form.graphConfigPath || "langgraph.json",
    },
  });
}

/** Create a deployment from a bundled template, an uploaded archive or a git repository. */
export function CreateDeployment() {
  const { client } = useSession();
  const templates = useLoad(() => client.templates(), [client]);
  const [kind, setKind] = useState<Kind>("template");
  const [form, setForm] = useState<Form>({
    name: "",
    templateId: "",
    archive: null,
    graphConfigPath: "langgraph.json",
    repoUrl: "",
    repoRef: "main",
    buildOnPush: false,
    installCommand: "",
    secrets: "",
  });
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const set = (patch: Partial<Form>) => setForm((f) => ({ ...f, ...patch }));
  const text = (name: keyof Form) => (e: Event) => set({ [name]: (e.target as HTMLInputElement).value });
  const templateId = form.templateId || templates.data?.resources[0]?.id || "";

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    const base = { name: form.name.trim(), secrets: parseSecrets(form.secrets) };
    try {
      let created: Deployment;
      if (kind === "template") {
        created = await client.createDeployment({
          ...base,
          source: "internal_template",
          source_config: { template_id: templateId },
          source_revision_config: {},
        });
      } else if (kind === "upload") {
        created = await createFromArchive(client, form, base);
      } else {
        created = await client.createDeployment({
          ...base,
          source: "repo_host",
          source_config: {
            repo_url: form.repoUrl.trim(),
            build_on_push: form.buildOnPush,
            ...(form.installCommand ? { install_command: form.installCommand } : {}),
          },
          source_revision_config: { repo_ref: form.repoRef.trim(), graph_config_path: form.graphConfigPath },
        });
      }
      navigate(`/deployments/${created.id}`);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  const fields = [
    "name",
    "secrets",
    "source_config.template_id",
    "source_config.repo_url",
    "source_config.install_command",
    "source_revision_config.repo_ref",
    "source_revision_config.graph_config_path",
    "archive",
  ];
  const unclaimed =
    error instanceof ApiError && !fields.some((f) => error.fieldMessages(f).length > 0) ? error : null;

  return (
    <section>
      <h1>New deployment</h1>
      <form class="card form" onSubmit={submit} noValidate>
        <fieldset class="choice">
          {(
            [
              ["template", "Template"],
              ["upload", "Upload an archive"],
              ["git", "Git repository"],
            ] as const
          ).map(([id, label]) => (
            <label key={id}>
              <input type="radio" name="kind" value={id} checked={kind === id} onChange={() => setKind(id)} />
              {label}
            </label>
          ))}
        </fieldset>
        <Field label="Name" name="name" error={error} hint="lowercase letters, digits and '-'">
          <input name="name" value={form.name} onInput={text("name")} required />
        </Field>
        {kind === "template" && (
          <Field label="Template" name="source_config.template_id" error={error}>
            <select name="template" value={templateId} onChange={text("templateId")}>
              {templates.data?.resources.map((t) => (
                <option key={t.id} value={t.id}>
                  {t.name} — {t.description} ({t.graphs.join(", ")})
                </option>
              ))}
            </select>
          </Field>
        )}
        {kind === "upload" && (
          <Field label="Project archive (.tar.gz)" name="archive" error={error}>
            <input
              name="archive"
              type="file"
              accept=".tgz,.tar.gz,application/gzip"
              onChange={(e) => set({ archive: (e.target as HTMLInputElement).files?.[0] ?? null })}
            />
          </Field>
        )}
        {kind === "git" && (
          <>
            <Field label="Repository URL" name="source_config.repo_url" error={error}>
              <input name="repo_url" value={form.repoUrl} onInput={text("repoUrl")} placeholder="https://…" />
            </Field>
            <Field label="Branch or tag" name="source_revision_config.repo_ref" error={error}>
              <input name="repo_ref" value={form.repoRef} onInput={text("repoRef")} />
            </Field>
            <label class="check">
              <input
                type="checkbox"
                checked={form.buildOnPush}
                onChange={(e) => set({ buildOnPush: (e.target as HTMLInputElement).checked })}
              />
              Build on push
            </label>
          </>
        )}
        {kind !== "template" && (
          <>
            <Field
              label="Graph configuration path"
              name="source_revision_config.graph_config_path"
              error={error}
            >
              <input
                name="graph_config_path"
                value={form.graphConfigPath}
                onInput={text("graphConfigPath")}
              />
            </Field>
            <Field
              label="Install command"
              name="source_config.install_command"
              error={error}
              hint="empty: detected from the lock file"
            >
              <input name="install_command" value={form.installCommand} onInput={text("installCommand")} />
            </Field>
          </>
        )}
        <Field label="Secrets" name="secrets" error={error} hint="one NAME=value per line">
          <textarea name="secrets" rows={3} value={form.secrets} onInput={text("secrets")} />
        </Field>
        <ErrorBox error={unclaimed ?? (error instanceof ApiError ? null : error)} />
        <div class="actions">
          <button type="submit" class="primary" disabled={busy}>
            {busy ? "Creating…" : "Create deployment"}
          </button>
          <a href="/">Cancel</a>
        </div>
      </form>
    </section>
  );
}
