// One box for what support has in hand: an event id, an aggregate's id in the pipeline's own word
// ("order"), a message id or a trace id (from Grafana, Tempo or a log line); a plain GET form, so
// it works before hydration. The header holds it: one search box on every page. The journey
// page says which of them matched.
import { getWords } from '@/lib/api';

export async function SearchBox() {
  const { aggregate } = await getWords();
  return (
    <form className="search" action="/lookup" method="get" role="search">
      <label htmlFor="q" className="muted">
        Event, {aggregate}, message or trace id
      </label>
      <input
        id="q"
        name="q"
        type="search"
        placeholder={`event, ${aggregate}, message or trace id`}
        required
        maxLength={128}
      />
      <button type="submit">Look up</button>
    </form>
  );
}
