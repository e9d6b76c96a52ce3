// Retry delays for the background loops that wait for PostgreSQL or RabbitMQ to come (back).
import { setTimeout as delay } from 'node:timers/promises';

/** Exponential delay with ±20 % jitter: 0.5 s, 1 s, 2 s, … up to `maxMs`. */
export function backoffMs(attempt: number, initialMs = 500, maxMs = 30_000): number {
  const base = Math.min(maxMs, initialMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(base * (0.8 + Math.random() * 0.4));
}

/** Waits `ms`, or less when `signal` aborts; never rejects. */
export async function sleep(ms: number, signal: AbortSignal): Promise<void> {
  await delay(ms, undefined, { signal, ref: false }).catch(() => undefined);
}
