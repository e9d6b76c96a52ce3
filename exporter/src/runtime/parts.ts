// The exporter's background parts (the journey store's supervisor, the broker topology's refresh,
// the Celery consumer, dead-letter parking) share one lifecycle: createExporter lists them once,
// Parts starts them in that order and stops them in the reverse one (a part stops before what it
// uses), and /status and /readyz read each one's health from the same list.
import type { PartStatus } from './health.js';

export interface Part {
  /** Its name in acktrail_part_up{part}, /status and the logs. */
  readonly name: string;
  /** Begins its background work and returns at once; failures are its health, never a throw. */
  start(): void;
  /** Ends its work and lets go of its connections and timers. */
  stop(): Promise<void>;
  /** Up, down (with the last error) or not checked yet; null: its state is a collector's. */
  health(): PartStatus | null;
}

export class Parts {
  constructor(private readonly list: readonly Part[]) {}

  start(): void {
    for (const part of this.list) part.start();
  }

  /** Stops every part, the last started first; one that fails to stop does not keep the rest. */
  async stop(): Promise<void> {
    for (const part of [...this.list].reverse()) await part.stop().catch(() => undefined);
  }

  health(): PartStatus[] {
    return this.list.flatMap((part) => part.health() ?? []);
  }
}
