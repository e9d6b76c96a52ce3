// One target of a replay plan as an operator reads it before confirming: why it is allowed (the
// configuration's, or the message's claim), which queues it reaches by the broker's bindings now,
// and a note when that deserves a second look.
import type { ReplayTarget } from '../model/message.js';
import type { TargetBasis, Topology } from './targets.js';

/** One target of a plan: where, why it is allowed, what it reaches now, how many go there. */
export interface PlannedTarget {
  exchange: string;
  routingKey: string;
  /** What named it: the config, the message's headers, or its x-death. */
  source: ReplayTarget['source'];
  basis: TargetBasis;
  /** The queues it reaches by the broker's bindings now; null when that is not known. */
  reaches: string[] | null;
  /** What an operator should know before confirming: a claim, an unknown or an empty reach. */
  note: string | null;
  count: number;
}

const quoted = (names: string[]) => names.map((q) => `"${q}"`).join(', ');

/** The plan's line for an allowed target of a message parked from `queue` of `vhost`. */
export function planned(
  d: { target: ReplayTarget; basis: TargetBasis },
  queue: string,
  topology: Topology | null,
  vhost: string,
): Omit<PlannedTarget, 'count'> {
  const line = { ...d.target, basis: d.basis };
  if (!topology)
    return {
      ...line,
      reaches: null,
      note: 'without the broker topology (rabbitmq.enabled) where it goes is not known',
    };
  const reach = topology.reach(vhost, d.target.exchange, d.target.routingKey);
  if ('unknown' in reach)
    return { ...line, reaches: null, note: `where it goes cannot be computed: ${reach.unknown}` };
  if (reach.queues.length === 0)
    return { ...line, reaches: [], note: 'it reaches no queue now: the broker would return it' };
  const note =
    d.basis === 'claimed'
      ? `the message's own x-death names this target and the bindings route it to ${quoted(reach.queues)} alone, but anyone who may publish to the dead-letter exchange can write x-death: to make it the configuration's, set deadLetters.queues[].replayTo for ${queue}`
      : null;
  return { ...line, reaches: reach.queues, note };
}
