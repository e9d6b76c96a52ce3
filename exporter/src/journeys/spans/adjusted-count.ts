// How many messages a span stands for, where its service samples: OpenTelemetry's consistent
// probability sampling writes the rejection threshold it applied in the W3C tracestate, `ot=th:<hex>`
// (up to 14 hex digits, right-padded with zeros to 56 bits; th:0 samples everything). A span kept
// with threshold T was kept with probability (2^56 - T) / 2^56, so it stands for 2^56 / (2^56 - T)
// spans: its adjusted count, which span-derived counters add. No `th`: 1 (what it says is all that
// is known; the coverage tells a sampling service from its spans: coverage-tally.ts).
const MAX_HEX = 14;
const TWO_56 = 2 ** 56;

/** The `th` of tracestate's `ot` entry, or null: none, or not 1-14 lowercase hex digits. */
export function thresholdOf(traceState: string): string | null {
  for (const member of traceState.split(',')) {
    const eq = member.indexOf('=');
    if (eq < 0 || member.slice(0, eq).trim() !== 'ot') continue;
    for (const field of member.slice(eq + 1).split(';')) {
      if (!field.startsWith('th:')) continue;
      const th = field.slice(3).trim();
      return th.length >= 1 && th.length <= MAX_HEX && /^[0-9a-f]+$/.test(th) ? th : null;
    }
  }
  return null;
}

/**
 * The adjusted count a span may claim unless the configuration says otherwise
 * (journeys.maxAdjustedCount): a sampling probability of 1 in 1,000. A span's tracestate is the
 * sender's word; a threshold that claims more (`th:fffffffffffff`: 2^52 messages, and 2^56 for
 * 14 `f`) counts as 1 and is counted as refused (acktrail_sampling_thresholds_refused_total), so no
 * span can push a counter past what its service could sample or make it non-finite.
 */
export const DEFAULT_MAX_ADJUSTED_COUNT = 1000;

const TWO_56_BIG = 1n << 56n;

/**
 * The adjusted count of a span with this tracestate: 1 without a valid threshold; `refused` when
 * its threshold claims more than `max` (then it counts as 1). Always finite.
 */
export function adjustedCount(
  traceState: string,
  max = DEFAULT_MAX_ADJUSTED_COUNT,
): { count: number; refused: boolean } {
  const th = traceState === '' ? null : thresholdOf(traceState);
  if (th === null) return { count: 1, refused: false };
  // Exact in BigInt: as a float, 14 `f` rounds to 2^56 and the count to Infinity.
  const kept = TWO_56_BIG - BigInt(`0x${th.padEnd(MAX_HEX, '0')}`);
  const count = TWO_56 / Number(kept);
  return count > max ? { count: 1, refused: true } : { count, refused: false };
}

/** The adjusted count of a span with this tracestate: 1 without a valid threshold. */
export function adjustedCountOf(traceState: string, max = DEFAULT_MAX_ADJUSTED_COUNT): number {
  return adjustedCount(traceState, max).count;
}
