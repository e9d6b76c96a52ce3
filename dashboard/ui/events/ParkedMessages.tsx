// A dead-lettered event's parked copies (dead-letter parking): each one's state, when it reached
// it, how often it was replayed and by whom, with a link to the message, where support reads it
// and an operator replays or discards it.
import Link from 'next/link';
import { at, clock } from '@/ui/time';
import type { Journey } from '@/lib/data/types';

const STATES: Record<string, string> = {
  parked: 'parked, waiting for an operator',
  replaying: 'being replayed',
  replayed: 'replayed',
  discarded: 'discarded by an operator',
  too_large: 'too large to park: listed, left in its queue',
  set_aside: 'too large to park: moved to the set-aside queue',
  unstorable: 'set aside: the store refused it',
};

export function ParkedMessages({ journey }: { journey: Journey }) {
  if (journey.parked.length === 0) return null;
  // The replay steps name who replayed and when (acktrail writes them itself).
  const replays = journey.timeline.filter((e) => e.stage === 'replay');
  const last = replays.at(-1);
  return (
    <section aria-label="Parked dead letters" data-testid="parked">
      <h2>Parked dead letter{journey.parked.length === 1 ? '' : 's'}</h2>
      <ul>
        {journey.parked.map((p) => (
          <li key={p.id}>
            <Link href={`/dead-letters/${encodeURIComponent(p.id)}`}>message {p.id}</Link> in{' '}
            <code>{p.queue}</code>: <strong>{STATES[p.state] ?? p.state}</strong> since{' '}
            {at(p.stateAt)} (
            {p.reasonSaidBy === 'x-death' || p.reasonSaidBy === 'none' ? (
              p.reason
            ) : (
              <>
                the message&apos;s header <code>{p.reasonSaidBy}</code> says <q>{p.reason}</q>
              </>
            )}
            )
            {p.replays > 0
              ? `; replayed ${p.replays === 1 ? 'once' : `${p.replays} times`}${last ? `, last ${last.note ?? ''} at ${clock(last.at)}` : ''}`
              : ''}
          </li>
        ))}
      </ul>
    </section>
  );
}
