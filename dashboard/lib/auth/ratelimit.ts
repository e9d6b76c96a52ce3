// Failed sign-ins, counted per client and in all, in fixed windows. Past PER_CLIENT failures a
// client is refused until its window ends, the right secret included. Past GLOBAL failures in
// all (someone trying from many addresses) every attempt is slowed by GLOBAL_DELAY_MS, but never
// refused: nobody can lock everyone else out. The client key is the TCP peer, or the address a
// trusted proxy names (lib/auth/request.ts clientAddress): a client cannot choose its own. In memory,
// in this process, with a bounded number of clients remembered.
import 'server-only';

export const WINDOW_MS = 15 * 60_000;
export const PER_CLIENT = 10;
export const GLOBAL = 100;
export const GLOBAL_DELAY_MS = 1000;
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
  return c.failures >= PER_CLIENT ? Math.ceil((c.resetAt - now) / 1000) : 0;
}

/** How long to hold an attempt before checking it: past the global limit, GLOBAL_DELAY_MS. */
export function globalDelayMs(now = Date.now()): number {
  all = current(all, now);
  return all.failures >= GLOBAL ? GLOBAL_DELAY_MS : 0;
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
