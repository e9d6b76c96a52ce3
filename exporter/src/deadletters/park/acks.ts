// The acks of one consuming channel. Parking commits batches out of order (two in flight), and a
// message may only be acked once its row is committed; a too-large one is never acked (it stays
// in the queue; one being set aside is pending until its copy is confirmed). So each delivery is tracked in delivery-tag order, and after a commit the longest
// run of committed deliveries at the front is acked with one `multiple` ack; a committed delivery
// behind one still pending waits for it, and one behind a held (too-large) delivery is acked alone,
// since a `multiple` ack would take the held one with it.
import type { ConsumeMessage } from 'amqplib';

/** What the window needs of a channel. */
export interface Acker {
  ack(message: ConsumeMessage, allUpTo?: boolean): void;
}

type State = 'pending' | 'committed' | 'held';

export class AckWindow {
  /** Outstanding deliveries in delivery-tag order (the order the channel delivers them). */
  private readonly outstanding: { msg: ConsumeMessage; state: State }[] = [];

  constructor(private readonly channel: Acker) {}

  /** A delivery received: pending until its row commits, or held for good (never acked). */
  received(msg: ConsumeMessage, held = false): void {
    this.outstanding.push({ msg, state: held ? 'held' : 'pending' });
  }

  /** A delivery that could not be set aside: held for good from now on. */
  hold(msg: ConsumeMessage): void {
    const d = this.outstanding.find((o) => o.msg === msg);
    if (d?.state !== 'pending') return;
    d.state = 'held';
    this.committed([]);
  }

  /** Deliveries whose rows are committed: acks every one that can be acked now. */
  committed(msgs: Iterable<ConsumeMessage>): void {
    const done = new Set(msgs);
    for (const d of this.outstanding)
      if (d.state === 'pending' && done.has(d.msg)) d.state = 'committed';
    let run = 0;
    while (run < this.outstanding.length && this.outstanding[run]!.state === 'committed') run++;
    if (run > 0) {
      this.channel.ack(this.outstanding[run - 1]!.msg, run > 1);
      this.outstanding.splice(0, run);
    }
    // Behind a held delivery nothing can be acked with `multiple`: those go one by one.
    if (this.outstanding[0]?.state !== 'held') return;
    for (let i = this.outstanding.length - 1; i > 0; i--) {
      const d = this.outstanding[i]!;
      if (d.state !== 'committed') continue;
      this.channel.ack(d.msg);
      this.outstanding.splice(i, 1);
    }
  }

  /** Deliveries tracked and not acked (held ones included). */
  get size(): number {
    return this.outstanding.length;
  }
}
