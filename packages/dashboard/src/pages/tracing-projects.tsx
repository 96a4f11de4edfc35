// Tracing projects: the workspace's list (those of deployments and those left by deleted ones or
// made by scripts), and one project's traces with deletion.
import { useState } from "preact/hooks";
import { SendTracesHere } from "../components/trace-snippet.js";
import { ErrorBox, Loading } from "../components/ui.js";
import { useSession } from "../context.js";
import { ago } from "../format.js";
import { useLoad } from "../hooks.js";
import { navigate } from "../router.js";
import type { DeploymentView } from "./deployment.js";
import { ProjectTraces } from "./traces.js";

/** `/tracing-projects`: every project of the workspace, newest first. */
export function TracingProjectsList() {
  const { client } = useSession();
  const projects = useLoad(() => client.tracingProjects(), [client]);
  return (
    <section>
      <div class="title-row">
        <h1>Tracing projects</h1>
      </div>
      <SendTracesHere open />
      <ErrorBox error={projects.error} />
      {!projects.data && !projects.error && <Loading />}
      <table class="list" id="tracing-projects">
        <thead>
          <tr>
            <th>Name</th>
            <th>Deployment</th>
            <th>Created</th>
          </tr>
        </thead>
        <tbody>
          {projects.data?.resources.map((p) => (
            <tr key={p.id} data-project={p.name}>
              <td>
                <a href={`/tracing-projects/${p.id}`}>{p.name}</a>
              </td>
              <td>
                {p.deployment_id ? (
                  <a href={`/deployments/${p.deployment_id}`}>deployment</a>
                ) : (
                  <span class="muted">none</span>
                )}
              </td>
              <td>{ago(p.created_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {projects.data?.resources.length === 0 && <p class="empty">No tracing projects yet.</p>}
    </section>
  );
}

/** `/tracing-projects/:id`: a project's traces; deleting it removes them all. */
export function TracingProjectPage({ id }: { id: string }) {
  const { client } = useSession();
  const project = useLoad(() => client.tracingProject(id), [client, id]);
  const [deleteError, setDeleteError] = useState<unknown>(null);
  const remove = async () => {
    if (!confirm("Delete this tracing project and all its traces?")) return;
    try {
      await client.deleteTracingProject(id);
      navigate("/tracing-projects");
    } catch (error) {
      setDeleteError(error);
    }
  };
  return (
    <section>
      <p>
        <a href="/tracing-projects">← Tracing projects</a>
      </p>
      <ErrorBox error={project.error ?? deleteError} />
      {project.data && (
        <div class="title-row">
          <h1>{project.data.name}</h1>
          {project.data.deployment_id && (
            <a href={`/deployments/${project.data.deployment_id}`}>deployment</a>
          )}
          <span class="spacer" />
          <button type="button" class="small danger" onClick={remove}>
            Delete project
          </button>
        </div>
      )}
      {project.data && <SendTracesHere project={project.data.name} />}
      {project.data && <ProjectTraces projectId={id} />}
    </section>
  );
}

/** A deployment's Traces tab: the traces of the project it traces to. */
export function DeploymentTraces({ deployment }: DeploymentView) {
  const { client } = useSession();
  const project = useLoad(async () => {
    const page = await client.tracingProjects({ name: deployment.name });
    return page.resources.find((p) => p.deployment_id === deployment.id) ?? page.resources[0] ?? null;
  }, [client, deployment.id, deployment.name]);
  if (project.error) return <ErrorBox error={project.error} />;
  if (project.data === undefined) return <Loading />;
  if (project.data === null)
    return (
      <>
        <p class="muted">This deployment has no tracing project.</p>
        <SendTracesHere project={deployment.name} />
      </>
    );
  return (
    <>
      <p class="muted">
        Project <a href={`/tracing-projects/${project.data.id}`}>{project.data.name}</a>: every run of this
        deployment's agent is traced here.
      </p>
      <SendTracesHere project={project.data.name} />
      <ProjectTraces projectId={project.data.id} />
    </>
  );
}
