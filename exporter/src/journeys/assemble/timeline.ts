// The time line of one journey: its steps and the pipeline's rows, in time order, with the gap
// since the entry before and the wait since the causal parent. Clocks differ between services: a
// step that starts before its parent is marked as skewed, and no wait or gap is ever negative.
import { ATTR, isPublish, type AttributeValue } from '@acktrail/conventions';
import type { PipelineRows } from '../model/pipeline-rows.js';
import { STEP_ATTR, type StoredRow } from '../model/steps.js';

export interface TimelineEntry {
  at: string;
  stage: string;
  source: 'span' | 'pipeline';
  service: string | null;
  name: string;
  durationMs: number | null;
  /** Since the previous entry on the time line. */
  gapMs: number | null;
  /** Since the end of the causal parent (e.g. publish -> deliver); null when unknown or skewed. */
  waitMs: number | null;
  /** How far this step starts before its parent ended, when the clocks disagree. */
  skewMs: number | null;
  status: string;
  statusMessage: string | null;
  note: string | null;
  traceId: string | null;
  spanId: string | null;
  parentSpanId: string | null;
  attributes: Record<string, AttributeValue>;
}

type Positioned = TimelineEntry & { atUs: number; endUs: number };

const ms = (us: number) => Math.round(us / 1000);

function spanEntry(s: StoredRow): Positioned {
  const result = s.attrs[ATTR.result];
  const note =
    s.stage === 'deliver'
      ? [
          s.attrs[ATTR.redelivered] === true ? 'redelivered' : null,
          Number(s.attrs[ATTR.attempt] ?? 1) > 1
            ? `attempt ${String(s.attrs[ATTR.attempt])}`
            : null,
          typeof result === 'string' ? result.replace(/_/g, ' ') : null,
        ]
          .filter(Boolean)
          .join(', ') || null
      : s.stage === 'settle'
        ? String(s.attrs[ATTR.settleOutcome] ?? '')
        : s.stage === 'dead_letter'
          ? String(s.attrs[ATTR.deadLetterReason] ?? '')
          : s.stage === 'replay'
            ? `by ${String(s.attrs[STEP_ATTR.replayBy] ?? 'unknown')}`
            : s.stage === 'provider.call'
              ? String(s.attrs[ATTR.providerOutcome] ?? '')
              : isPublish(s.stage) && s.attrs[ATTR.publishOutcome] === 'unroutable'
                ? 'unroutable'
                : null;
  return {
    atUs: s.timeUs,
    endUs: s.timeUs + s.durationUs,
    at: new Date(s.timeUs / 1000).toISOString(),
    stage: s.stage,
    source: 'span',
    service: s.service,
    name: s.name,
    durationMs: s.durationUs / 1000,
    gapMs: null,
    waitMs: null,
    skewMs: null,
    status: s.status,
    statusMessage: s.statusMessage,
    note: note || null,
    traceId: s.traceId,
    spanId: s.spanId,
    parentSpanId: s.parentSpanId,
    attributes: s.attrs,
  };
}

function rowEntry(stage: string, at: Date, name: string, note: string | null = null): Positioned {
  const atUs = at.getTime() * 1000;
  return {
    atUs,
    endUs: atUs,
    at: at.toISOString(),
    stage,
    source: 'pipeline' as const,
    service: null,
    name,
    durationMs: null,
    gapMs: null,
    waitMs: null,
    skewMs: null,
    status: 'unset',
    statusMessage: null,
    note,
    traceId: null,
    spanId: null,
    parentSpanId: null,
    attributes: {},
  };
}

export function buildTimeline(steps: StoredRow[], rows: PipelineRows | null): TimelineEntry[] {
  const entries: Positioned[] = steps.map(spanEntry);
  if (rows?.aggregate)
    entries.push(rowEntry('aggregate.created', rows.aggregate.createdAt, 'aggregate row'));
  if (rows?.outbox) {
    entries.push(rowEntry('outbox.created', rows.outbox.createdAt, 'outbox row'));
    if (rows.outbox.publishedAt)
      entries.push(rowEntry('outbox.published', rows.outbox.publishedAt, 'outbox published_at'));
  }
  for (const a of rows?.attempts ?? [])
    entries.push(
      rowEntry(
        'provider.attempt',
        a.createdAt,
        `attempt ${a.attempt}`,
        `${a.outcome}${a.statusCode === null ? '' : ` (${a.statusCode})`}`,
      ),
    );
  if (rows?.result) entries.push(rowEntry('result.committed', rows.result.createdAt, 'result row'));
  entries.sort((a, b) => a.atUs - b.atUs || a.stage.localeCompare(b.stage));

  const bySpan = new Map(entries.filter((e) => e.spanId).map((e) => [e.spanId, e]));
  entries.forEach((e, i) => {
    const prev = entries[i - 1];
    e.gapMs = prev ? ms(e.atUs - prev.atUs) : null;
    const parent = e.parentSpanId ? bySpan.get(e.parentSpanId) : undefined;
    // A child that starts before its parent started is clock skew between the two services (a
    // consumer may legitimately start before the publisher's span ends: the confirm comes later).
    if (parent && e.atUs < parent.atUs) e.skewMs = ms(parent.atUs - e.atUs);
    // A delivery waits from the moment the message was sent (the confirm may come after it).
    else if (parent && (isPublish(parent.stage) || parent.stage === 'retry.publish'))
      e.waitMs = ms(e.atUs - parent.atUs);
    else if (parent && e.stage !== 'settle' && parent.stage !== 'deliver')
      e.waitMs = Math.max(0, ms(e.atUs - parent.endUs));
  });

  return entries.map(({ atUs: _a, endUs: _e, ...e }) => e);
}
