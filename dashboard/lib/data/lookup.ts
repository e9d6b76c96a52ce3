// Where the search box's value leads: an aggregate's id to its page; a value a business-key
// lookup is for (a customer's e-mail) to what it found (one aggregate or event: its page; more:
// the list of them, by id); anything else to the journey page, which finds it as an event, trace
// or message id. The value itself never goes into a URL once a lookup took it: it is not an id.
import 'server-only';
import { findByLookups, getJourney, listEvents } from './api';

const enc = encodeURIComponent;

export async function destinationOf(q: string): Promise<string> {
  const asAggregate = await listEvents({ aggregate_id: q, since: '3650d', limit: '1' });
  if (asAggregate.kind === 'ok' && asAggregate.value.events.length > 0) return `/orders/${enc(q)}`;
  const found = await findByLookups(q);
  const answers = found.kind === 'ok' ? found.value.lookups : [];
  if (found.kind !== 'ok' || answers.length === 0) return `/events/${enc(q)}`;
  const targets = new Set<string>();
  const params = new URLSearchParams();
  for (const a of answers) {
    params.append('by', a.name);
    if (a.error) params.append('failed', `${a.name}: ${a.error}`);
    if (a.truncated) params.append('cut', a.name);
    for (const id of a.ids) {
      targets.add(a.returns === 'aggregate' ? `/orders/${enc(id)}` : `/events/${enc(id)}`);
      params.append(a.returns === 'aggregate' ? 'a' : 'e', id);
    }
  }
  if (targets.size === 1 && !params.has('failed') && !params.has('cut')) return [...targets][0]!;
  // Nothing found by a lookup: it may still be an id the journey page knows.
  if (targets.size === 0 && !params.has('failed') && (await getJourney(q)).kind === 'ok')
    return `/events/${enc(q)}`;
  return `/lookup/found?${params.toString()}`;
}
