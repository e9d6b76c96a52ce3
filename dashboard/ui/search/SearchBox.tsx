// One box for what support has in hand: an event id, an aggregate's id (the pipeline's own word
// for it, from config), a message id or a trace id (from Grafana, Tempo or a log line), or what a configured
// business-key lookup takes (a customer's e-mail). A form posting to a Server Action (it works
// before hydration, and the value stays out of URLs). The header holds it: one search box on
// every page. The journey page says which of them matched.
import { getWords, listLookups } from '@/lib/data/api';
import { lookUp } from '@/app/lookup/actions';

export async function SearchBox() {
  const [{ aggregate }, lookups] = await Promise.all([getWords(), listLookups()]);
  const extra =
    lookups.kind === 'ok'
      ? lookups.value.lookups.map((l) => l.description ?? l.name).filter(Boolean)
      : [];
  const what = `Event, ${aggregate}, message or trace id${extra.map((e) => `, ${e}`).join('')}`;
  return (
    <form className="search" action={lookUp} role="search">
      <label htmlFor="q" className="muted">
        {what}
      </label>
      <input
        id="q"
        name="q"
        type="search"
        placeholder={what.toLowerCase()}
        required
        maxLength={320}
      />
      <button type="submit">Look up</button>
    </form>
  );
}
