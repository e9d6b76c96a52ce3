// Where a replay may publish. acktrail replays with a broker user of its own, which may publish
// where the message's producer may not, so what the message says is never enough: a target is
// allowed when the config names it (the queue's replayTo, or replay.allowedTargets) or when it is
// what an x-death entry records: of a queue that replay.sourceQueues names and that dead-letters
// into this one, with an exchange and routing key that reach that queue and no other by the
// broker's bindings (followed through exchange-to-exchange bindings; a reach that cannot be
// computed is refused). The broker writes x-death, but so can anyone who may publish to the
// dead-letter exchange: such a target stays the message's claim, and the plan says so (basis
// `claimed`). The topology alone is no credential: an app user may declare queues and bindings,
// and a queue it declares that dead-letters here, bound where it likes, would otherwise vouch for a
// forged x-death. The x-original-* headers only choose among allowed targets, and the default
// exchange (which reaches every queue of the vhost by name) only when listed by name.
import type { Reach } from '../../broker/reach.js';
import type { ValidatedConfig } from '../../config.js';
import type { Death, ReplayTarget } from '../model/message.js';

/** What the broker's topology says (broker/topology.ts); null when rabbitmq is off. */
export interface Topology {
  /** The dead-letter queues of a vhost (allDeadLetterQueues). */
  deadLetterQueues(vhost: string): string[];
  /** The queues whose dead-lettering reaches `queue`; null: not known yet. */
  deadLetterSources(vhost: string, queue: string): string[] | null;
  /** Where a publish goes, following exchange-to-exchange bindings (broker/reach.ts). */
  reach(vhost: string, exchange: string, routingKey: string): Reach;
}

/** Where the current topology is read from at each decision (broker/refresh.ts swaps it whole). */
export interface Topologies {
  readonly current: Topology;
}

/**
 * Why a target is allowed, for the plan: `configured` the queue's replayTo names it; `listed` the
 * message names it and deadLetters.replay.allowedTargets admits it; `claimed` the message's own
 * x-death names it and the broker's bindings agree (it reaches that queue alone), which any user
 * who may publish to the dead-letter exchange can also write.
 */
export type TargetBasis = 'configured' | 'listed' | 'claimed';

type Settings = ValidatedConfig['deadLetters'];

export type TargetDecision =
  | { allowed: true; target: ReplayTarget; basis: TargetBasis }
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

/** The default exchange ('') only by its own name: `*` would reach every queue by name. */
const listed = (t: ReplayTarget, s: Settings) =>
  s.replay.allowedTargets.some(
    (a) =>
      (t.exchange === '' ? a.exchange === '' : globMatch(a.exchange, t.exchange)) &&
      globMatch(a.routingKey, t.routingKey),
  );

/**
 * The x-death entries the broker wrote when a configured source queue that dead-letters into this
 * one let the message go, as targets that reach that queue again and no other. An entry forged
 * for another queue, one whose exchange and key do not reach it, or reach more than it, is not
 * one; `notes` says why each entry was passed over.
 */
function brokerRecords(
  row: { vhost: string; queue: string; deaths: Death[] },
  settings: Settings,
  topology: Topology | null,
  notes: string[] = [],
): ReplayTarget[] {
  const sources = topology?.deadLetterSources(row.vhost, row.queue);
  if (!topology || !sources) return [];
  return row.deaths.flatMap((d) => {
    if (!settings.replay.sourceQueues.some((p) => globMatch(p, d.queue))) {
      notes.push(
        `x-death names queue "${d.queue}", which deadLetters.replay.sourceQueues does not`,
      );
      return [];
    }
    if (!sources.includes(d.queue) || d.exchange === '') return [];
    for (const routingKey of d.routingKeys) {
      const to = `exchange "${d.exchange}", routing key "${routingKey}"`;
      const reach = topology.reach(row.vhost, d.exchange, routingKey);
      if ('unknown' in reach) {
        notes.push(`where ${to} goes cannot be computed: ${reach.unknown}`);
        continue;
      }
      if (!reach.queues.includes(d.queue)) {
        notes.push(`${to} does not reach "${d.queue}"`);
        continue;
      }
      const others = reach.queues.filter((q) => q !== d.queue);
      if (others.length === 0)
        return [{ exchange: d.exchange, routingKey, source: 'x-death' as const }];
      notes.push(`${to} reaches ${others.map((q) => `"${q}"`).join(', ')} besides "${d.queue}"`);
    }
    return [];
  });
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
  if (configured)
    return { allowed: true, basis: 'configured', target: { ...configured, source: 'config' } };
  const notes: string[] = [];
  const records = brokerRecords(row, settings, topology, notes);
  const candidate = row.replayTo;
  if (!candidate) {
    const record = records[0];
    if (record) return { allowed: true, basis: 'claimed', target: record };
    return {
      allowed: false,
      target: null,
      reason: `nothing says where to replay it (${notes.length ? notes.join('; ') : 'no x-death, no x-original-exchange'}): set deadLetters.queues[].replayTo for ${row.queue}`,
    };
  }
  if (listed(candidate, settings)) return { allowed: true, basis: 'listed', target: candidate };
  if (records.some((r) => same(r, candidate)))
    return { allowed: true, basis: 'claimed', target: candidate };
  const why =
    candidate.exchange === ''
      ? 'the default exchange reaches every queue of the vhost by name and is refused unless configured'
      : topology
        ? `it is neither configured nor the broker’s record of a configured source queue that dead-letters here${notes.length ? ` (${notes.join('; ')})` : ''}`
        : 'it is not configured, and without the broker topology (rabbitmq.enabled) x-death cannot be checked';
  return {
    allowed: false,
    target: candidate,
    reason: `${describe(candidate)} is not an allowed replay target: ${why}; set deadLetters.queues[].replayTo or deadLetters.replay.allowedTargets`,
  };
}
