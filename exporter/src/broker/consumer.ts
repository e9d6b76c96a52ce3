// A queue's consumer that can be paused, for the memory budget (runtime/memory.ts): basic.cancel
// stops new deliveries (those already delivered are still handled and settled on the channel, so
// what the consumer holds is worked off), basic.consume starts them again. With a single active
// consumer, a paused replica hands the queue to another. Pause and resume may come in any order
// and at any time: they are applied one after the other, and the last one wins.
import type { Channel, ConsumeMessage, Options } from 'amqplib';

export class PausableConsumer {
  private tag: string | null = null;
  private paused: boolean;
  private applying: Promise<void> = Promise.resolve();

  constructor(
    private readonly ch: Channel,
    private readonly queue: string,
    private readonly onMessage: (msg: ConsumeMessage) => void,
    private readonly options: Options.Consume,
    paused: boolean,
  ) {
    this.paused = paused;
  }

  /** Consumes unless paused; rejects when the broker refuses the first basic.consume. */
  async start(): Promise<void> {
    if (!this.paused) await this.consume();
  }

  /**
   * Pauses or resumes; resolves once applied. A failure (the channel closed meanwhile) is left to
   * whoever watches the channel: it opens a new one.
   */
  setPaused(paused: boolean): Promise<void> {
    this.paused = paused;
    this.applying = this.applying.then(() => this.apply()).catch(() => undefined);
    return this.applying;
  }

  private async apply(): Promise<void> {
    if (this.paused && this.tag) {
      const tag = this.tag;
      this.tag = null;
      await this.ch.cancel(tag);
    } else if (!this.paused && !this.tag) await this.consume();
  }

  private async consume(): Promise<void> {
    const { consumerTag } = await this.ch.consume(
      this.queue,
      (msg) => {
        if (msg) this.onMessage(msg);
      },
      this.options,
    );
    this.tag = consumerTag;
  }
}
