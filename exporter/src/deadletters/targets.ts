// Where a replay may publish. acktrail replays with a broker user of its own, which may publish
// where the message's producer may not, so what the message says is never enough: a target is
// allowed when the config names it (the queue's replayTo, or replay.allowedTargets) or when it is
// the broker's own record of where the message was published before it died (an x-death entry of
// a queue that dead-letters into this one, whose exchange and routing key reach that queue by
// the broker's bindings). The x-original-* headers only choose among allowed targets, and the
// default exchange (which reaches every queue of the vhost by name) only when configured.
import type { Routes } from '../broker/routes.js';
import { routesReach } from '../broker/dead-lettering.js';
import type { ValidatedConfig } from '../config.js';
import type { Death, ReplayTarget } from './message.js';

/** What the broker's topology says, from the queue catalog; null when no catalog runs. */
export interface Topology {
  /** The dead-letter queues of a vhost (allDeadLetterQueues). */
  deadLetterQueues(vhost: string): string[];
  /** The queues whose dead-lettering reaches `queue`; null: not known yet. */
  deadLetterSources(vhost: string, queue: string): string[] | null;
  routesOf(vhost: string, queue: string): Routes | undefined;
}

type Settings = ValidatedConfig['deadLetters'];

export type TargetDecision =
  | { allowed: true; target: ReplayTarget }
  | { allowed: false; reason: string; target: ReplayTarget | null };

/** `*` matches any run of characters; everything else matches itself. Linear in the text. */
export function globMatch(pattern: string, text: string): boolean {
  const parts = pattern.split('*');
  if (parts.length === 1) return pattern === text;
  const first = parts[0]!;
  const last = parts.at(-1)!;
  if (!text.startsWith(first) || text.length < first.length + last.length) return false;
  let at = first.length;
  for (const middle of parts.slice(1, -1)) {
    const found = text.indexOf(middle, at);
    if (found === -1) return false;
    at = found + middle.length;
  }
  return text.length - last.length >= at && text.endsWith(last);
}

const listed = (t: ReplayTarget, s: Settings) =>
  s.replay.allowedTargets.some(
    (a) => globMatch(a.exchange, t.exchange) && globMatch(a.routingKey, t.routingKey),
  );

/**
 * The x-death entries the broker wrote when a queue that dead-letters into this one let the
 * message go, as targets that reach that queue again. An entry a producer forged for another
 * queue, or with an exchange and key that do not reach it, is not one.
 */
function brokerRecords(
  row: { vhost: string; queue: string; deaths: Death[] },
  topology: Topology | null,
): ReplayTarget[] {
  const sources = topology?.deadLetterSources(row.vhost, row.queue);
  if (!topology || !sources) return [];
  return row.deaths.flatMap((d) =>
    sources.includes(d.queue) && d.exchange !== ''
      ? d.routingKeys
          .filter((k) => routesReach(topology.routesOf(row.vhost, d.queue), d.exchange, k))
          .slice(0, 1)
          .map((routingKey) => ({ exchange: d.exchange, routingKey, source: 'x-death' as const }))
      : [],
  );
}

const same = (a: ReplayTarget, b: ReplayTarget) =>
  a.exchange === b.exchange && a.routingKey === b.routingKey;

const describe = (t: ReplayTarget) =>
  `exchange "${t.exchange}", routing key "${t.routingKey}" (from ${t.source})`;

/**
 * Where this parked message may be replayed: the queue's replayTo; else the target the message
 * was parked with (its headers, or x-death) when it is listed or a broker record; else, for a
 * message that names no target, the first broker record. A message that names a target that is
 * not allowed is refused, not sent elsewhere: what it claims is worth an operator's look.
 * Decided at replay time, with the config and topology of that moment.
 */
export function replayTarget(
  row: { vhost: string; queue: string; replayTo: ReplayTarget | null; deaths: Death[] },
  settings: Settings,
  topology: Topology | null,
): TargetDecision {
  const configured = settings.queues.find((q) => q.queue === row.queue)?.replayTo;
  if (configured) return { allowed: true, target: { ...configured, source: 'config' } };
  const records = brokerRecords(row, topology);
  const candidate = row.replayTo;
  if (!candidate) {
    const record = records[0];
    if (record) return { allowed: true, target: record };
    return {
      allowed: false,
      target: null,
      reason: `nothing says where to replay it (no x-death, no x-original-exchange): set deadLetters.queues[].replayTo for ${row.queue}`,
    };
  }
  if (listed(candidate, settings) || records.some((r) => same(r, candidate)))
    return { allowed: true, target: candidate };
  const why =
    candidate.exchange === ''
      ? 'the default exchange reaches every queue of the vhost by name and is refused unless configured'
      : topology
        ? 'it is neither configured nor the broker’s record of a queue that dead-letters here'
        : 'it is not configured, and without the queue catalog (rabbitmq.enabled) x-death cannot be checked';
  return {
    allowed: false,
    target: candidate,
    reason: `${describe(candidate)} is not an allowed replay target: ${why}; set deadLetters.queues[].replayTo or deadLetters.replay.allowedTargets`,
  };
}
