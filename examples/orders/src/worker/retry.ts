/** Retry delay after failed attempt n (1-based): min(max, base * 2^(n-1)) * scale, ±10 % jitter. */
export function retryDelayMs(
  attempt: number,
  opts: { baseDelayMs: number; maxDelayMs: number; scale: number },
  random: () => number = Math.random,
): number {
  const exp = Math.min(opts.maxDelayMs, opts.baseDelayMs * 2 ** (attempt - 1));
  const jitter = 0.9 + 0.2 * random();
  return Math.round(exp * opts.scale * jitter);
}
