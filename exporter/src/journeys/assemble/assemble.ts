// A journey: the stored steps of one event and the pipeline's own rows, on one time line, with the
// gaps between them, a classification and a one-line verdict. Steps come from several services
// whose clocks differ: a wait that comes out negative is never shown as such; it is reported as
// clock skew instead.
import type { PipelineRows } from './pipeline-rows.js';
import type { StoredRow } from '../store/queries.js';
import { buildTimeline, type TimelineEntry } from './timeline.js';

export type { TimelineEntry };

export const JOURNEY_KINDS = [
  'delivered_once',
  'published_twice',
  'redelivered',
  'retried',
  'dead_lettered',
  'unroutable',
  'stuck_in_outbox',
  'order_missing',
  'duplicate_provider_call',
  'never_acked',
  'in_flight',
  'task_succeeded',
  'task_failed',
  'task_revoked',
  'task_rejected',
] as const;
export type JourneyKind = (typeof JOURNEY_KINDS)[number];

export interface Journey {
  eventId: string;
  aggregate: { type: string | null; id: string } | null;
  verdict: string;
  kinds: JourneyKind[];
  publishes: number;
  deliveries: number;
  retries: { count: number; delaysMs: number[] };
  deadLetter: { reason: string } | null;
  attempts: {
    attempt: number;
    outcome: string;
    statusCode: number | null;
    at: string;
    durationMs: number;
  }[];
  traceIds: string[];
  timeline: TimelineEntry[];
}

export interface AssembleOptions {
  nowMs: number;
  stuckAfterSeconds: number;
  unackedAfterSeconds: number;
}

const clock = (d: Date) => d.toISOString().slice(11, 19);
const times = (n: number) => (n === 1 ? 'once' : n === 2 ? 'twice' : `${n} times`);

function humanDuration(msValue: number): string {
  const s = Math.round(msValue / 1000);
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  return `${Math.round(s / 3600)} h`;
}

export function assemble(
  eventId: string,
  steps: StoredRow[],
  rows: PipelineRows | null,
  opts: AssembleOptions,
): Journey {
  const entries = buildTimeline(steps, rows);

  const of = (stage: string) => steps.filter((s) => s.stage === stage);
  const publishSteps = of('outbox.publish');
  const unroutable = publishSteps.filter(
    (s) => s.attrs['acktrail.publish.outcome'] === 'unroutable',
  );
  const publishes = publishSteps.length - unroutable.length;
  const delivers = of('deliver');
  const settles = of('settle');
  const redelivered = delivers.filter((s) => s.attrs['acktrail.delivery.redelivered'] === true);
  const maxAttempt = Math.max(
    1,
    ...delivers.map((s) => Number(s.attrs['acktrail.delivery.attempt'] ?? 1)),
  );
  const retrySteps = of('retry.publish');
  const retryCount = Math.max(maxAttempt - 1, retrySteps.length);
  const delaysMs = retrySteps
    .map((s) => Number(s.attrs['acktrail.retry.delay_ms']))
    .filter((n) => Number.isFinite(n));
  const deadLetterStep = of('dead_letter').at(-1);
  const providerCalls = of('provider.call');
  const attempts = rows?.attempts ?? [];
  // Retries re-use the idempotency key by design; a duplicate is a call the provider had already
  // served, which it answers with a replay.
  const duplicateCall =
    providerCalls.some((s) => s.attrs['acktrail.provider.outcome'] === 'idempotent_replay') ||
    attempts.some((a) => a.outcome === 'idempotent_replay');
  const aggregateId =
    rows?.outbox?.aggregateId ?? steps.find((s) => s.aggregateId)?.aggregateId ?? null;
  const aggregateType = steps.find((s) => s.aggregateType)?.aggregateType ?? null;
  const sentAt =
    rows?.confirmation?.createdAt ??
    (() => {
      const s = settles.find((x) => x.attrs['acktrail.result'] === 'sent');
      return s ? new Date(s.timeUs / 1000) : null;
    })();
  const failed = rows?.order?.notificationStatus === 'failed';
  const deadLetterReason = deadLetterStep
    ? String(deadLetterStep.attrs['acktrail.dead_letter.reason'] ?? 'unknown')
    : null;
  const stuck =
    rows?.outbox !== null &&
    rows?.outbox !== undefined &&
    rows.outbox.publishedAt === null &&
    opts.nowMs - rows.outbox.createdAt.getTime() > opts.stuckAfterSeconds * 1000;
  const orderMissing =
    rows !== null && aggregateId !== null && rows.order === null && steps.length > 0;
  const lastDeliver = delivers.at(-1);
  const neverAcked =
    lastDeliver !== undefined &&
    !settles.some((s) => s.timeUs >= lastDeliver.timeUs) &&
    (lastDeliver.status === 'error' ||
      opts.nowMs - lastDeliver.timeUs / 1000 > opts.unackedAfterSeconds * 1000);

  const kinds: JourneyKind[] = [];
  if (publishes > 1) kinds.push('published_twice');
  if (redelivered.length > 0) kinds.push('redelivered');
  if (retryCount > 0) kinds.push('retried');
  if (deadLetterStep || failed) kinds.push('dead_lettered');
  if (unroutable.length > 0) kinds.push('unroutable');
  if (stuck) kinds.push('stuck_in_outbox');
  if (orderMissing) kinds.push('order_missing');
  if (duplicateCall) kinds.push('duplicate_provider_call');
  if (neverAcked) kinds.push('never_acked');
  if (kinds.length === 0) kinds.push(sentAt ? 'delivered_once' : 'in_flight');

  const errorCodes = attempts
    .filter((a) => a.outcome !== 'success' && a.outcome !== 'idempotent_replay')
    .map((a) => (a.statusCode === null ? a.outcome.replace(/_/g, ' ') : String(a.statusCode)));
  const codeSummary = [...new Set(errorCodes)]
    .map((c) => `${c} ${times(errorCodes.filter((x) => x === c).length)}`)
    .join(', ');

  const parts: string[] = [];
  if (stuck && rows.outbox) {
    parts.push(
      `stuck in the outbox for ${humanDuration(opts.nowMs - rows.outbox.createdAt.getTime())}: not published` +
        (unroutable.length > 0
          ? ` (returned as unroutable ${times(unroutable.length)})`
          : rows.outbox.lastError
            ? ` (last error: ${rows.outbox.lastError})`
            : ''),
    );
  } else if (unroutable.length > 0 && publishes === 0) {
    parts.push(
      `unroutable: the broker returned it ${times(unroutable.length)}; still in the outbox`,
    );
  }
  if (orderMissing)
    parts.push(`order ${aggregateId} no longer exists (database restored to an earlier point?)`);
  if (deadLetterStep || failed) {
    const n = Math.max(maxAttempt, attempts.length);
    parts.push(
      `dead-lettered after ${n} attempt${n === 1 ? '' : 's'}: ${deadLetterReason ?? 'failed'}`,
    );
  } else if (sentAt) {
    const retries =
      retryCount > 0
        ? ` after ${retryCount} retr${retryCount === 1 ? 'y' : 'ies'}${codeSummary ? ` (provider ${codeSummary})` : ''}`
        : '';
    parts.push(`confirmation sent once at ${clock(sentAt)}${retries}`);
  } else if (parts.length === 0) {
    parts.push(
      delivers.length > 0
        ? neverAcked
          ? 'delivered but never acked'
          : 'delivered, still being processed'
        : publishes > 0
          ? 'published, not yet delivered'
          : 'not yet published',
    );
  }
  if (publishes > 1) {
    const ignored = delivers.filter((s) => s.attrs['acktrail.result'] === 'already_done').length;
    parts.push(
      `published ${times(publishes)}` +
        (ignored > 0
          ? `, ${ignored === 1 ? 'second copy' : `${ignored} copies`} ignored by the consumer (already done)`
          : ''),
    );
  }
  if (redelivered.length > 0 && publishes <= 1)
    parts.push(
      `redelivered ${times(redelivered.length)}` +
        (redelivered.some((s) => s.attrs['acktrail.result'] === 'already_done')
          ? ', recognised as already done'
          : ''),
    );
  if (duplicateCall)
    parts.push('provider called again with the same idempotency key and answered with a replay');

  return {
    eventId,
    aggregate: aggregateId ? { type: aggregateType, id: aggregateId } : null,
    verdict: parts.join('; '),
    kinds,
    publishes,
    deliveries: delivers.length,
    retries: { count: retryCount, delaysMs },
    deadLetter: deadLetterReason
      ? { reason: deadLetterReason }
      : failed
        ? { reason: 'failed' }
        : null,
    attempts: attempts.map((a) => ({
      attempt: a.attempt,
      outcome: a.outcome,
      statusCode: a.statusCode,
      at: a.createdAt.toISOString(),
      durationMs: Math.round(a.durationSeconds * 1000),
    })),
    traceIds: [...new Set(steps.map((s) => s.traceId))],
    timeline: entries,
  };
}
