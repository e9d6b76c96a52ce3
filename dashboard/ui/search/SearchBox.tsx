// One box for an event_id or an aggregate's id, in the pipeline's own word ("order"); a plain GET
// form, so it works before hydration. The header holds it: one search box on every page.
import { getWords } from '@/lib/api';

export async function SearchBox() {
  const { aggregate } = await getWords();
  return (
    <form className="search" action="/lookup" method="get" role="search">
      <label htmlFor="q" className="muted">
        Event or {aggregate}
      </label>
      <input
        id="q"
        name="q"
        type="search"
        placeholder={`event_id or ${aggregate} id`}
        required
        maxLength={128}
      />
      <button type="submit">Look up</button>
    </form>
  );
}
