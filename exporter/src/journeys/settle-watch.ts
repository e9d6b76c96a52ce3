// Which queues need the broker's evidence where spans are silent, kept as spans arrive: queues
// whose deliveries come from an instrumentation that records no settle (their counters are read
// into the store each time the stats collector reads the broker: journeys/store/queue-readings.ts),
// and queues a traced consumer reads (a dead letter there would reach acktrail as a delivery span:
// model/inference.ts). In memory, each bounded; a replica knows the queues of the spans it received.
import { ATTR } from '@acktrail/conventions';
import { PROFILES, type ProfileId } from './model/index.js';
import { STEP_ATTR, type Step } from './model/steps.js';
import type { QueueReading } from './store/index.js';

/** Queues kept in each set; past it the one seen longest ago goes. */
const MAX_QUEUES = 1_000;
/**
 * The last readings of every queue kept in memory, so that a queue watched from its first silent
 * delivery on has its reading from before that delivery too (its window's start).
 */
const RECENT = 3;
const MAX_RECENT_QUEUES = 20_000;
/** A queue is watched this long after the last delivery that made it so. */
const WATCH_MS = 24 * 3_600_000;

/** The recordings whose consumers leave a settle to the broker's evidence. */
const SILENT = new Set(
  Object.values(PROFILES)
    .filter((p) => p.settle === 'none' || p.settle === 'settle-spans-in-handler')
    .map((p) => p.id),
);

/** Whether the instrumentation (a step's sdk attribute) leaves the settle to the broker's evidence. */
export const leavesSettle = (sdk: unknown): boolean =>
  typeof sdk === 'string' && SILENT.has(sdk as ProfileId);

/** A name -> last seen map, bounded, the oldest evicted first. */
class Seen {
  private readonly at = new Map<string, number>();

  note(name: string, nowMs: number): void {
    this.at.delete(name);
    this.at.set(name, nowMs);
    if (this.at.size > MAX_QUEUES) this.at.delete(this.at.keys().next().value!);
  }

  within(name: string, nowMs: number): boolean {
    const t = this.at.get(name);
    return t !== undefined && nowMs - t <= WATCH_MS;
  }
}

/** One queue's counters as the stats collector read them. */
export interface CountedQueue {
  vhost: string;
  queue: string;
  counted: { deliver_get: number; ack: number; unacked: number; consumers: number } | null;
}

export class SettleWatch {
  private readonly silent = new Seen();
  private readonly recording = new Seen();
  private readonly traced = new Seen();
  private readonly recent = new Map<string, QueueReading[]>();
  /** Queues watched since the last answer: their recent readings are written with the next. */
  private readonly backfill = new Set<string>();

  /** Steps just stored: their deliveries' queues, and which of them no span settles. */
  noteSteps(steps: Iterable<Pick<Step, 'stage' | 'attrs'>>, nowMs = Date.now()): void {
    for (const s of steps) {
      if (s.stage !== 'deliver') continue;
      const queue = s.attrs[ATTR.queue];
      if (typeof queue !== 'string' || queue === '') continue;
      this.traced.note(queue, nowMs);
      if (leavesSettle(s.attrs[STEP_ATTR.sdk])) {
        if (!this.silent.within(queue, nowMs)) this.backfill.add(queue);
        this.silent.note(queue, nowMs);
      } else this.recording.note(queue, nowMs);
    }
  }

  /**
   * Whether the queue's consumers are all of instrumentations that record no reject: a dead letter
   * from it was counted by no span (where one consumer records, its spans count its rejects).
   */
  onlySilent(queue: string, nowMs = Date.now()): boolean {
    return this.silent.within(queue, nowMs) && !this.recording.within(queue, nowMs);
  }

  /** Whether a traced consumer has read this queue lately. */
  isTraced(queue: string, nowMs = Date.now()): boolean {
    return this.traced.within(queue, nowMs);
  }

  /**
   * The readings to keep of one answer: the watched queues', at `atMs`, and for a queue watched
   * since the last answer, its readings from before (kept in memory for every queue).
   */
  readings(atMs: number, queues: readonly CountedQueue[], nowMs = Date.now()): QueueReading[] {
    const out: QueueReading[] = [];
    for (const name of this.backfill) out.push(...(this.recent.get(name) ?? []));
    this.backfill.clear();
    for (const q of queues) {
      const reading = {
        queue: q.queue,
        vhost: q.vhost,
        atMs,
        delivered: q.counted?.deliver_get ?? null,
        acked: q.counted?.ack ?? null,
        unacked: q.counted?.unacked ?? null,
        consumers: q.counted?.consumers ?? null,
      };
      if (this.silent.within(q.queue, nowMs)) out.push(reading);
      this.remember(reading);
    }
    return out;
  }

  private remember(r: QueueReading): void {
    const list = this.recent.get(r.queue);
    if (list) {
      list.push(r);
      if (list.length > RECENT) list.shift();
    } else if (this.recent.size < MAX_RECENT_QUEUES) this.recent.set(r.queue, [r]);
  }
}
