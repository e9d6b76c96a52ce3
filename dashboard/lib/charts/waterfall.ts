// The waterfall's time axis: long idle gaps compressed, so that every step stays visible when a
// journey spans minutes (a replayed dead letter: steps of milliseconds, hours apart). A gap with
// nothing running that is both over MIN_GAP_MS and many times the busy time is drawn as a narrow
// break, marked with its real length; ticks and tooltips keep the real offsets.

/** A gap shorter than this is drawn as it is. */
const MIN_GAP_MS = 100;
/** A gap is compressed when it is longer than this many times all the busy time together. */
const GAP_FACTOR = 4;
/** A compressed gap is drawn this share of the busy time wide (at least MIN_DRAWN_MS). */
const DRAWN_SHARE = 0.1;
const MIN_DRAWN_MS = 0.5;

export interface Span {
  /** ms from the journey's first entry */
  start: number;
  end: number;
}

export interface Axis {
  /** Where an offset (ms from the first entry) is drawn. */
  toX(ms: number): number;
  /** The real offset at a drawn position (for ticks). */
  toMs(x: number): number;
  /** The compressed gaps: where they are drawn and how long they really were. */
  gaps: { x1: number; x2: number; ms: number }[];
}

/** The busy stretches: the spans merged where they touch or overlap, in time order. */
function busy(spans: Span[]): Span[] {
  const sorted = [...spans].sort((a, b) => a.start - b.start);
  const out: Span[] = [];
  for (const s of sorted) {
    const last = out.at(-1);
    if (last && s.start <= last.end) last.end = Math.max(last.end, s.end);
    else out.push({ start: s.start, end: Math.max(s.start, s.end) });
  }
  return out;
}

export function compressedAxis(spans: Span[]): Axis {
  const stretches = busy(spans);
  const busyMs = stretches.reduce((sum, s) => sum + (s.end - s.start), 0);
  const drawn = Math.max(busyMs * DRAWN_SHARE, MIN_DRAWN_MS);
  // Breakpoints of a piecewise-linear map: each real time where a compressed gap starts or ends.
  const cuts: { ms: number; x: number }[] = [{ ms: 0, x: 0 }];
  const gaps: Axis['gaps'] = [];
  let removed = 0;
  for (let i = 1; i < stretches.length; i++) {
    const from = stretches[i - 1]!.end;
    const to = stretches[i]!.start;
    const gap = to - from;
    if (gap <= MIN_GAP_MS || gap <= GAP_FACTOR * busyMs) continue;
    const x1 = from - removed;
    removed += gap - drawn;
    cuts.push({ ms: from, x: x1 }, { ms: to, x: to - removed });
    gaps.push({ x1, x2: x1 + drawn, ms: gap });
  }
  const toX = (ms: number) => {
    const i = cuts.findLastIndex((c) => c.ms <= ms);
    const c = cuts[Math.max(i, 0)]!;
    const next = cuts[i + 1];
    // Inside a compressed gap the map is squeezed; elsewhere it keeps real milliseconds.
    if (next && i % 2 === 1) return c.x + ((ms - c.ms) / (next.ms - c.ms)) * (next.x - c.x);
    return c.x + (ms - c.ms);
  };
  const toMs = (x: number) => {
    const i = cuts.findLastIndex((c) => c.x <= x);
    const c = cuts[Math.max(i, 0)]!;
    const next = cuts[i + 1];
    if (next && i % 2 === 1) return c.ms + ((x - c.x) / (next.x - c.x)) * (next.ms - c.ms);
    return c.ms + (x - c.x);
  };
  return { toX, toMs, gaps };
}
