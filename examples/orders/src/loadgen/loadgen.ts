// Load generator: N orders/s for T seconds against the orders API, with a progress line.
import { setTimeout as sleep } from 'node:timers/promises';

export interface LoadOptions {
  apiUrl: string;
  rate: number;
  /** Seconds; 0 runs until the signal aborts. */
  durationS: number;
  /** Share of orders addressed to `*@invalid.example`, which the demo provider rejects. */
  invalidRatio: number;
  signal?: AbortSignal;
  onProgress?: (p: LoadProgress) => void;
  /** How often onProgress is called while running, in seconds. Default 1. */
  progressIntervalS?: number;
}

export interface LoadProgress {
  sent: number;
  created: number;
  errors: number;
  elapsedS: number;
}

export async function runLoad(opts: LoadOptions): Promise<LoadProgress> {
  const started = performance.now();
  const progress: LoadProgress = { sent: 0, created: 0, errors: 0, elapsedS: 0 };
  const inFlight = new Set<Promise<void>>();
  const intervalMs = 1000 / opts.rate;
  const progressEveryMs = (opts.progressIntervalS ?? 1) * 1000;
  let lastReport = 0;

  const post = async (n: number) => {
    const invalid = Math.random() < opts.invalidRatio;
    const body = {
      customer_email: invalid ? `customer${n}@invalid.example` : `customer${n}@example.com`,
      total: Math.round(Math.random() * 50000) / 100,
    };
    try {
      const res = await fetch(new URL('/orders', opts.apiUrl), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(10_000),
      });
      await res.arrayBuffer();
      if (res.status === 201) progress.created++;
      else progress.errors++;
    } catch {
      progress.errors++;
    }
  };

  for (let n = 0; ; n++) {
    const elapsedMs = performance.now() - started;
    if (opts.signal?.aborted || (opts.durationS > 0 && elapsedMs >= opts.durationS * 1000)) break;
    // Schedule against the start time so that the rate does not drift with request latency.
    const due = n * intervalMs - elapsedMs;
    if (due > 0) await sleep(due, undefined, { signal: opts.signal }).catch(() => undefined);
    if (opts.signal?.aborted) break;
    progress.sent++;
    const p = post(n).finally(() => inFlight.delete(p));
    inFlight.add(p);
    if (opts.onProgress && elapsedMs - lastReport >= progressEveryMs) {
      lastReport = elapsedMs;
      opts.onProgress({ ...progress, elapsedS: elapsedMs / 1000 });
    }
  }
  await Promise.allSettled([...inFlight]);
  progress.elapsedS = (performance.now() - started) / 1000;
  opts.onProgress?.({ ...progress });
  return progress;
}

export function formatProgress(p: LoadProgress): string {
  const rate = p.elapsedS > 0 ? p.created / p.elapsedS : 0;
  return `loadgen: ${p.sent} sent, ${p.created} created, ${p.errors} errors, ${rate.toFixed(1)} orders/s over ${p.elapsedS.toFixed(0)} s`;
}
