export default function NotFound() {
  return (
    <section>
      <h1>Not found</h1>
      <p>No journey has this id. Check the id, or search again above.</p>
    </section>
  );
}
