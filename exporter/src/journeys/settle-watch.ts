// Which queues need the broker's evidence where spans are silent, kept as spans arrive: the
// queues messages are published to (by the broker's bindings) and those silent consumers read get
// their counters read into the store each time the stats collector reads the broker, a reading
// kept only when it differs from the last one kept (journeys/store/queue-readings.ts); queues a
// traced consumer reads (a dead letter there would reach acktrail as a delivery span:
// model/inference.ts); and whether a queue's consumers all leave their rejects to the broker (its
// dead letters are counted from parking). In memory, each bounded; a replica knows the queues of
// the spans it received.
import { ATTR, SEMCONV, isPublish } from '@acktrail/conventions';
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
/** After a queue's counters change, its readings are kept this long however alike. */
const KEEP_AFTER_CHANGE_MS = 3 * 60_000;
/** Otherwise an unchanged reading is kept once this often. */
const KEEP_QUIET_MS = 10 * 60_000;
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

/** Where a publish (or a delivery that names no queue) went, by the broker's bindings. */
export type Reached = (exchange: string, key: string | null) => string[];

export class SettleWatch {
  /** Queues whose counters are kept. */
  private readonly watched = new Seen();
  private readonly recording = new Seen();
  private readonly traced = new Seen();
  private readonly recent = new Map<string, QueueReading[]>();
  /** Queues watched since the last answer: their recent readings are written with the next. */
  private readonly backfill = new Set<string>();
  /** The last reading of each queue: what it said, when it last changed, when one was last kept. */
  private readonly kept = new Map<string, { said: string; changedAt: number; keptAt: number }>();

  /**
   * Steps just stored: the queues their publishes reach and their deliveries name, and which of
   * those no span settles. `reached`: the broker's bindings (none: a publish watches nothing).
   */
  noteSteps(
    steps: Iterable<Pick<Step, 'stage' | 'attrs'>>,
    reached: Reached = () => [],
    nowMs = Date.now(),
  ): void {
    for (const s of steps) {
      const queue = s.attrs[ATTR.queue];
      if (s.stage === 'deliver' && typeof queue === 'string' && queue !== '') {
        this.watch(queue, nowMs);
        this.traced.note(queue, nowMs);
        if (!leavesSettle(s.attrs[STEP_ATTR.sdk])) this.recording.note(queue, nowMs);
      } else if (isPublish(s.stage) || s.stage === 'deliver') {
        const exchange = s.attrs[SEMCONV.destination];
        const key = s.attrs[SEMCONV.routingKey];
        if (typeof exchange !== 'string') continue;
        for (const q of reached(exchange, typeof key === 'string' ? key : null))
          this.watch(q, nowMs);
      }
    }
  }

  private watch(queue: string, nowMs: number): void {
    if (!this.watched.within(queue, nowMs)) this.backfill.add(queue);
    this.watched.note(queue, nowMs);
  }

  /**
   * Whether a consumer whose spans record rejects reads the queue: its spans count its rejects.
   * Where none does (its consumers record no settle, or are not traced at all), a dead letter from
   * the queue was counted by no span.
   */
  recordsRejects(queue: string, nowMs = Date.now()): boolean {
    return this.recording.within(queue, nowMs);
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
      if (this.watched.within(q.queue, nowMs) && this.keeps(reading)) out.push(reading);
      this.remember(reading);
    }
    return out;
  }

  /**
   * Whether a reading is kept: when it says something the last did not, for KEEP_AFTER_CHANGE_MS
   * after a change (the readings that close the windows of the deliveries that made it), and once
   * every KEEP_QUIET_MS otherwise; a quiet queue writes little.
   */
  private keeps(r: QueueReading): boolean {
    const said = `${r.vhost}|${r.delivered}|${r.acked}|${r.unacked}|${r.consumers}`;
    const last = this.kept.get(r.queue);
    const at = r.atMs;
    if (last && last.said === said && at - last.changedAt > KEEP_AFTER_CHANGE_MS) {
      if (at - last.keptAt < KEEP_QUIET_MS) return false;
      last.keptAt = at;
      return true;
    }
    if (!last && this.kept.size >= MAX_RECENT_QUEUES) this.kept.clear();
    const changedAt = !last || last.said !== said ? at : last.changedAt;
    this.kept.set(r.queue, { said, changedAt, keptAt: at });
    return true;
  }

  private remember(r: QueueReading): void {
    const list = this.recent.get(r.queue);
    if (list) {
      list.push(r);
      if (list.length > RECENT) list.shift();
    } else if (this.recent.size < MAX_RECENT_QUEUES) this.recent.set(r.queue, [r]);
  }
}
