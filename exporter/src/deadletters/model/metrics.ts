// Metrics of parking, replay and discard (docs/metrics.md "Dead letters"). Queue labels are the
// configured dead-letter queues; the reason label is the masked reason group, capped.
import { Counter, Gauge, type Registry } from 'prom-client';
import { BoundedLabel } from '../../labels.js';
import { counter, gauge } from '../../metrics/catalogue.js';

const MAX_REASONS = 50;

/** A message parked for the first time, as the metrics and their listeners see it. */
export interface ParkedOne {
  queue: string;
  reasonGroup: string;
  /** Its x-death entries, the latest first: where it was dead-lettered from, and why. */
  deaths: readonly { queue: string; reason: string }[];
}

export class DeadLetterMetrics {
  readonly parked: Counter<'queue' | 'reason'>;
  readonly parkedNow: Gauge<'queue'>;
  readonly oldestAge: Gauge<'queue'>;
  readonly tooLarge: Gauge<'queue'>;
  readonly replays: Counter<'queue' | 'outcome'>;
  readonly discards: Counter<'queue'>;
  readonly unstorable: Counter<'queue'>;
  readonly setAside: Counter<'queue'>;
  readonly reasons: BoundedLabel;
  private oldest = new Map<string, number>();
  private readonly listeners: ((row: ParkedOne) => void)[] = [];

  constructor(registry: Registry) {
    const registers = [registry];
    this.reasons = new BoundedLabel(MAX_REASONS, { registry, label: 'parked_reason' });
    this.parked = new Counter({ ...counter('acktrail_dead_letters_parked_total'), registers });
    this.parkedNow = new Gauge({ ...gauge('acktrail_dead_letters_waiting'), registers });
    const oldest = this.oldest;
    this.oldestAge = new Gauge({
      ...gauge('acktrail_dead_letters_oldest_parked_age_seconds'),
      registers,
      collect() {
        const now = Date.now();
        for (const [queue, at] of oldest) this.set({ queue }, at ? (now - at) / 1000 : 0);
      },
    });
    this.tooLarge = new Gauge({ ...gauge('acktrail_dead_letters_too_large'), registers });
    this.replays = new Counter({ ...counter('acktrail_dead_letter_replays_total'), registers });
    this.unstorable = new Counter({
      ...counter('acktrail_dead_letters_unstorable_total'),
      registers,
    });
    this.setAside = new Counter({ ...counter('acktrail_dead_letters_set_aside_total'), registers });
    this.discards = new Counter({ ...counter('acktrail_dead_letter_discards_total'), registers });
  }

  /**
   * A message parked for the first time: counted, and told to those who listen (the journeys count
   * the dead letters of consumers whose spans record no reject: journeys/metrics.ts).
   */
  parkedOne(row: ParkedOne): void {
    this.parked.inc({ queue: row.queue, reason: this.reasons.of(row.reasonGroup) });
    for (const listener of this.listeners) listener(row);
  }

  /** Hears every message parked for the first time. */
  onParked(listener: (row: ParkedOne) => void): void {
    this.listeners.push(listener);
  }

  /** A queue is known: its series exist at 0 before anything happens. */
  watch(queue: string): void {
    if (this.oldest.has(queue)) return;
    this.oldest.set(queue, 0);
    this.parkedNow.set({ queue }, 0);
    this.tooLarge.set({ queue }, 0);
    this.discards.inc({ queue }, 0);
    this.unstorable.inc({ queue }, 0);
    this.setAside.inc({ queue }, 0);
    for (const outcome of ['confirmed', 'unroutable', 'nacked', 'refused', 'error'])
      this.replays.inc({ queue, outcome }, 0);
  }

  /** What the store says is parked now. */
  setParked(rows: { queue: string; count: number; oldest: Date }[]): void {
    for (const q of this.oldest.keys()) {
      this.oldest.set(q, 0);
      this.parkedNow.set({ queue: q }, 0);
    }
    for (const r of rows) {
      if (!this.oldest.has(r.queue)) continue;
      this.oldest.set(r.queue, r.oldest.getTime());
      this.parkedNow.set({ queue: r.queue }, r.count);
    }
  }
}
