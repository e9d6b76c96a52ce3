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

/** The adjusted count of a span with this tracestate: 1 without a valid threshold. */
export function adjustedCountOf(traceState: string): number {
  if (traceState === '') return 1;
  const th = thresholdOf(traceState);
  if (th === null) return 1;
  const threshold = parseInt(th.padEnd(MAX_HEX, '0'), 16);
  // A threshold is below 2^56 by construction (14 hex digits).
  return TWO_56 / (TWO_56 - threshold);
}
