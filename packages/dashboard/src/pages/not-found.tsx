/** A path the app has no page for. */
export function NotFound() {
  return (
    <section>
      <h1>Not found</h1>
      <p>
        There is no page here. <a href="/">Back to the deployments</a>.
      </p>
    </section>
  );
}
