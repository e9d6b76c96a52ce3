// Steady load for the demo: payment intents at a rate, with the pipeline's faults mixed in
// (a few poison amounts, currencies the receipts reject, amounts over the audit limit).
import type { Logger } from './log.js';
import { messageOf } from './log.js';
import { AUDIT_LIMIT_CENTS } from './consumers.js';

/** One intent's body: mostly ordinary, about 1 in 50 of each fault. */
export function nextIntent(random: () => number = Math.random) {
  const r = random();
  if (r < 0.02) return { amount_cents: -500, currency: 'EUR' }; // poison: delivery limit
  if (r < 0.04) return { amount_cents: 1200, currency: 'XXX' }; // receipt rejected: DLX
  if (r < 0.05) return { amount_cents: AUDIT_LIMIT_CENTS, currency: 'EUR' }; // audit: discarded
  return { amount_cents: 100 + Math.floor(random() * 100_000), currency: 'EUR' };
}

export function runLoad(apiUrl: string, rate: number, log: Logger, signal: AbortSignal) {
  let sent = 0;
  let failed = 0;
  const timer = setInterval(() => {
    fetch(`${apiUrl}/intents`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(nextIntent()),
      signal,
    })
      .then((res) => (res.status === 201 ? sent++ : failed++))
      .catch((err: unknown) => {
        failed++;
        if (!signal.aborted) log.warn({ err: messageOf(err) }, 'POST /intents failed');
      });
  }, 1000 / rate);
  const progress = setInterval(() => {
    log.info({ sent, failed }, 'load');
  }, 10_000);
  signal.addEventListener('abort', () => {
    clearInterval(timer);
    clearInterval(progress);
  });
}
