// The state of each background part the configuration turns on (the journey store, the Celery
// consumer; the collectors report through their runner). /readyz reads it; every change of state
// is logged once and every failure is counted, so a part that keeps failing is one log line and
// a rising counter, not a flood.
import { Counter, Gauge, type Registry } from 'prom-client';
import { errorMessage, type Logger } from '../log.js';
import { DOCTOR } from '../docs.js';
import { counter, gauge } from '../metrics/catalogue.js';

export interface PartStatus {
  part: string;
  /** null: not checked yet (starting). */
  up: boolean | null;
  error: string | null;
  since: string;
  /** What a reader of /status should know about the part beyond up or down (a gap it had). */
  note?: string;
}

interface State {
  up: boolean | null;
  error: string | null;
  since: number;
}

export class Health {
  private readonly parts = new Map<string, State>();
  private readonly notes = new Map<string, string>();
  private readonly upGauge: Gauge<'part'>;
  private readonly errors: Counter<'part'>;

  constructor(
    registry: Registry,
    private readonly log: Logger,
  ) {
    this.upGauge = new Gauge({ ...gauge('acktrail_part_up'), registers: [registry] });
    this.errors = new Counter({
      ...counter('acktrail_background_errors_total'),
      registers: [registry],
    });
  }

  /** A part the configuration turned on; not ready until it reports up. */
  register(part: string): void {
    if (this.parts.has(part)) return;
    this.parts.set(part, { up: null, error: null, since: Date.now() });
    this.upGauge.set({ part }, 0);
    this.errors.inc({ part }, 0);
  }

  up(part: string): void {
    const s = this.state(part);
    if (s.up === true) return;
    if (s.up === false) this.log.info({ part }, `${part} recovered`);
    this.parts.set(part, { up: true, error: null, since: Date.now() });
    this.upGauge.set({ part }, 1);
  }

  /** A failure: counted every time, logged when the part was not already down. */
  down(part: string, err: unknown, what = 'failing'): void {
    const s = this.state(part);
    const error = errorMessage(err);
    this.errors.inc({ part });
    if (s.up !== false) {
      this.log.warn({ part, err: error, fix: DOCTOR }, `${part} ${what}`);
      this.parts.set(part, { up: false, error, since: Date.now() });
    } else {
      s.error = error;
    }
    this.upGauge.set({ part }, 0);
  }

  /** A failure that does not change the part's state (a pool error on an idle connection). */
  error(part: string, err: unknown, what: string): void {
    this.errors.inc({ part });
    this.log.warn({ part, err: errorMessage(err) }, what);
  }

  /** A failure counted and logged elsewhere (the process's last resort, runtime/last-resort.ts). */
  count(part: string): void {
    this.errors.inc({ part });
  }

  /** Says `text` with the part's status from now on (null: nothing more). */
  note(part: string, text: string | null): void {
    if (text === null) this.notes.delete(part);
    else this.notes.set(part, text);
  }

  isUp(part: string): boolean {
    return this.parts.get(part)?.up === true;
  }

  status(): PartStatus[] {
    return [...this.parts.keys()].map((part) => this.statusOf(part));
  }

  /** One part's state (registered now if it was not: not checked yet). */
  statusOf(part: string): PartStatus {
    const s = this.state(part);
    return {
      part,
      up: s.up,
      error: s.error,
      since: new Date(s.since).toISOString(),
      ...(this.notes.has(part) ? { note: this.notes.get(part)! } : {}),
    };
  }

  private state(part: string): State {
    this.register(part);
    return this.parts.get(part)!;
  }
}
