// Failed sign-ins, counted per client and in all, in fixed windows. Past either limit every
// attempt is refused until the window ends, the right secret included: guessing is bounded to
// PER_CLIENT tries per client and GLOBAL tries in all per WINDOW_MS, whoever asks. In memory, in
// this process, with a bounded number of clients remembered.
import 'server-only';

export const WINDOW_MS = 15 * 60_000;
export const PER_CLIENT = 10;
export const GLOBAL = 100;
const MAX_CLIENTS = 10_000;

interface Window {
  failures: number;
  resetAt: number;
}

const clients = new Map<string, Window>();
let all: Window = { failures: 0, resetAt: 0 };

function current(w: Window | undefined, now: number): Window {
  return w && w.resetAt > now ? w : { failures: 0, resetAt: now + WINDOW_MS };
}

/** Seconds until `client` may try again; 0 when it may now. */
export function retryAfterSeconds(client: string, now = Date.now()): number {
  const c = current(clients.get(client), now);
  all = current(all, now);
  const until = Math.max(
    c.failures >= PER_CLIENT ? c.resetAt : 0,
    all.failures >= GLOBAL ? all.resetAt : 0,
  );
  return until > now ? Math.ceil((until - now) / 1000) : 0;
}

export function recordFailure(client: string, now = Date.now()): void {
  const c = current(clients.get(client), now);
  c.failures++;
  clients.delete(client); // re-inserted last: the oldest entries are evicted first
  clients.set(client, c);
  if (clients.size > MAX_CLIENTS) clients.delete(clients.keys().next().value!);
  all = current(all, now);
  all.failures++;
}
