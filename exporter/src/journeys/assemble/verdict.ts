// A journey's one-line verdict in plain words, from what the rules concluded (kinds.ts), in the
// pipeline's own words for its aggregate and for work done (config journeys.words).
import type { PipelineRows } from '../model/pipeline-rows.js';
import { quoted, reasonWords } from './quote.js';
import {
  sdkName,
  type Classified,
  type Delivery,
  type JourneyFacts,
  type ResultWords,
} from '../model/index.js';

export interface Words {
  aggregate: string;
  done: string;
  /** What the consumer's result words mean (journeys.words.results); none without. */
  results?: ResultWords;
}

const clock = (d: Date) => d.toISOString().slice(11, 19);
export const times = (n: number) => (n === 1 ? 'once' : n === 2 ? 'twice' : `${n} times`);

function humanDuration(msValue: number): string {
  const s = Math.round(msValue / 1000);
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  return `${Math.round(s / 3600)} h`;
}

/** "provider 503 twice, timeout once" from the attempts that failed. */
function providerCodes(rows: PipelineRows | null): string {
  const codes = (rows?.attempts ?? [])
    .filter((a) => a.outcome !== 'success' && a.outcome !== 'idempotent_replay')
    .map((a) => (a.statusCode === null ? a.outcome.replace(/_/g, ' ') : String(a.statusCode)));
  return [...new Set(codes)]
    .map((c) => `${c} ${times(codes.filter((x) => x === c).length)}`)
    .join(', ');
}

/**
 * A delivery whose end no span recorded and the broker did not show, in words: what the broker
 * cannot tell apart and what would, where inference.ts says so.
 */
function unrecordedPart(d: Delivery): string {
  const on = d.queue ? ` on ${d.queue}` : '';
  const why = d.evidenceWords ? ` (${d.evidenceWords})` : '';
  if (d.unknownSettle) {
    const done = d.unknownSettle.operation === 'nack' ? 'nacked' : 'rejected';
    return `${done} at ${clock(new Date(d.unknownSettle.step.timeUs / 1000))}${on}; whether it was requeued is not recorded by ${sdkName(d.sdk)}, and the broker has shown nothing of it since${why}`;
  }
  return `delivered at ${clock(new Date(d.step.timeUs / 1000))}${on}; how it was settled is not recorded by ${sdkName(d.sdk)}${why}`;
}

/** Where an ack (or a requeue) was inferred rather than recorded, the evidence in words. */
function inferredPart(f: JourneyFacts): string[] {
  return f.deliveries
    .filter(
      (d) => (d.evidence === 'counters' || d.evidence === 'no_dead_letter') && d.evidenceWords,
    )
    .map((d) => `inferred, ${d.evidenceWords!}`);
}

/** Where the broker showed a dead-lettering that no span recorded. */
function seenBy(d: Delivery | null): string {
  if (d?.evidence === 'parking')
    return ' (shown by dead-letter parking; no span recorded the reject)';
  if (d?.evidence === 'dead_letter_queue')
    return ' (delivered out of the dead-letter queue; no span recorded the reject)';
  if (d?.evidence === 'spans')
    return ` (moved to ${d.queue ?? 'its queue'}_error by MassTransit's fault path after its handler threw; no span records the move)`;
  return '';
}

/** How often the message came again: published twice, redelivered, each in words. */
function repeats(f: JourneyFacts, c: Classified): string[] {
  const parts: string[] = [];
  if (c.publishes > 1) {
    const ignored = f.deliveries.filter((d) => d.meaning === 'done_before').length;
    parts.push(
      `published ${times(c.publishes)}` +
        (ignored > 0
          ? `, ${ignored === 1 ? 'second copy' : `${ignored} copies`} ignored by the consumer (already done)`
          : ''),
    );
  }
  if (c.redeliveries.length > 0 && c.publishes <= 1)
    parts.push(
      `redelivered ${times(c.redeliveries.length)}` +
        (c.redeliveries.some((d) => d.meaning === 'done_before')
          ? ', recognised as already done'
          : ''),
    );
  return parts;
}

export function verdictOf(
  f: JourneyFacts,
  c: Classified,
  rows: PipelineRows | null,
  words: Words,
  nowMs: number,
): string {
  const parts: string[] = [];
  const end = c.end;
  const where = end?.queue ? ` on ${end.queue}` : '';
  if (c.stuck && rows?.outbox) {
    parts.push(
      `stuck in the outbox for ${humanDuration(nowMs - rows.outbox.createdAt.getTime())}: not published` +
        (f.unroutable.length > 0
          ? ` (returned as unroutable ${times(f.unroutable.length)})`
          : rows.outbox.lastError
            ? ` (its last error says ${quoted(rows.outbox.lastError)})`
            : ''),
    );
  } else if (f.unroutable.length > 0 && c.publishes === 0) {
    parts.push(
      `unroutable: the broker returned it ${times(f.unroutable.length)}${rows?.outbox ? '; still in the outbox' : ''}`,
    );
  }
  const aggregateId = rows?.outbox?.aggregateId ?? f.deliveries[0]?.step.aggregateId ?? null;
  if (c.aggregateMissing)
    parts.push(
      `${words.aggregate}${aggregateId ? ` ${aggregateId}` : ''} no longer exists (database restored to an earlier point?)`,
    );
  // Attempts until the dead-lettering: after a replay, the ones since belong to its new round.
  const replayedAt = c.replay?.since ? c.replay.at : null;
  const attempts =
    replayedAt && rows?.attempts.length
      ? Math.max(1, rows.attempts.filter((a) => a.createdAt < replayedAt).length)
      : Math.max(c.retries + 1, rows?.attempts.length ?? 0);
  if (c.deadLetter) {
    parts.push(
      `dead-lettered after ${attempts} attempt${attempts === 1 ? '' : 's'}: ${reasonWords(c.deadLetter.reason)}${seenBy(end)}`,
    );
  }
  if (c.replay)
    parts.push(
      `replayed by ${c.replay.by} at ${clock(c.replay.at)}${c.replay.since ? '' : ', then dead-lettered again'}`,
    );
  const replayedAtUs = c.replay?.since ? c.replay.at.getTime() * 1000 : null;
  // After a replay, what followed it is the message's way now.
  if (c.deadLetter && !c.replay?.since) {
    // said above
  } else if (end?.fate === 'discarded') {
    parts.push(
      `discarded: ${end.reason?.text === 'delivery_limit' ? 'past its delivery limit' : 'rejected without requeue'}${where}, which has no dead-letter exchange: the message is gone`,
    );
  } else if (end?.fate === 'rejected') {
    parts.push(
      `rejected without requeue${where}; whether it was dead-lettered or dropped is not known (the queue's arguments were not read)`,
    );
  } else if (c.doneAt) {
    const codes = providerCodes(rows);
    const retries =
      c.retries > 0
        ? ` after ${c.retries} retr${c.retries === 1 ? 'y' : 'ies'}${codes ? ` (provider ${codes})` : ''}`
        : '';
    parts.push(`${words.done} once at ${clock(c.doneAt)}${retries}`);
  } else if (c.endedAt) {
    const results = [...new Set(f.deliveries.flatMap((d) => (d.result ? [d.result] : [])))];
    parts.push(
      `acked at ${clock(c.endedAt)}${results.length ? ` (result: ${results.join(', ')})` : ''}`,
    );
  } else if (replayedAtUs !== null && f.deliveries.every((d) => d.step.timeUs < replayedAtUs)) {
    parts.push('not yet delivered after the replay');
  } else if (c.unrecorded.length === 0 && (parts.length === 0 || replayedAtUs !== null)) {
    parts.push(
      f.deliveries.length > 0
        ? c.neverAcked
          ? 'delivered but never acked'
          : 'delivered, still being processed'
        : c.publishes > 0
          ? 'published, not yet delivered'
          : 'not yet published',
    );
  }
  for (const d of c.unrecorded) parts.push(unrecordedPart(d));
  parts.push(...inferredPart(f));
  parts.push(...repeats(f, c));
  if (c.duplicateCall)
    parts.push('provider called again with the same idempotency key and answered with a replay');
  return parts.join('; ');
}
