// Keeps the queue catalog (the RabbitMQ stats collector's data) as fresh as its interval without
// waiting for a scrape: journeys read from it what each queue does with a rejected message.
import type { PartStatus } from '../../runtime/health.js';
import type { Part } from '../../runtime/parts.js';
import type { CollectorRunner } from '../runner/runner.js';

export class CatalogRefresh implements Part {
  readonly name = 'queue_catalog';
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly runner: CollectorRunner,
    private readonly collector: string,
    private readonly everyMs: number,
  ) {}

  start(): void {
    const refresh = () => {
      this.runner.keepFresh(this.collector);
    };
    refresh();
    this.timer = setInterval(refresh, this.everyMs).unref();
  }

  stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    return Promise.resolve();
  }

  /** The catalog's state is its collector's (a source in /status), not a part's of its own. */
  health(): PartStatus | null {
    return null;
  }
}
