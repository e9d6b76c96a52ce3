// How dead-letter pages write times and states.
/** A time as every page writes it (ui/time.ts). */
export { at as when } from '@/ui/time';

export const STATE_BADGE: Record<string, string> = {
  parked: 'warn',
  replaying: 'warn',
  replayed: 'ok',
  discarded: 'muted',
  too_large: 'bad',
  set_aside: 'muted',
  unstorable: 'bad',
};

/** A flash message carried in the URL after a form post (?done=…): only known words are shown. */
export function flash(done: string | undefined, n: string | undefined): string | null {
  const count = Number(n);
  const many = Number.isInteger(count) && count >= 0 ? count : null;
  switch (done) {
    case 'replayed':
      return 'Replayed: the broker confirmed it.';
    case 'discarded':
      return many === null ? 'Discarded.' : `Discarded ${many}.`;
    case 'stopping':
      return 'Asked the replay to stop.';
    default:
      return null;
  }
}
