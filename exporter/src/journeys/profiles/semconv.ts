// A span read by the OpenTelemetry messaging semantic conventions (old and v1.43 names): what
// every profile reads as they say, and the default where a profile's hooks are silent.
import {
  ATTR,
  SEMCONV,
  SETTLE_OUTCOMES,
  STAGES,
  namesOf,
  type SettleOutcome,
  type Stage,
} from '@acktrail/conventions';
import type { AttributeValue, ReceivedSpan } from './span.js';

/** The journey stages a span can have (@acktrail/conventions STAGES). */
export type SpanStage = Stage;

/** OTLP span kinds. */
export const SPAN_KIND = { client: 3, producer: 4, consumer: 5 } as const;

const STAGE_SET = new Set<string>(STAGES);
const SETTLE_NAMES = new Set(['ack', 'nack', 'reject']);
const SETTLE_OUTCOME_SET = new Set<string>(SETTLE_OUTCOMES);

/** The first of `names` the attributes hold. */
export function first(
  attrs: Map<string, AttributeValue>,
  names: readonly string[],
): AttributeValue | undefined {
  for (const n of names) {
    const v = attrs.get(n);
    if (v !== undefined) return v;
  }
  return undefined;
}

export const text = (v: AttributeValue | undefined): string | null =>
  typeof v === 'string' ? v : null;

/** The journey stage by the messaging semantic conventions (old and v1.43 names). */
export function semconvStage(span: ReceivedSpan): SpanStage | null {
  const a = span.attributes;
  const explicit = a.get(ATTR.stage);
  if (typeof explicit === 'string' && STAGE_SET.has(explicit)) return explicit as SpanStage;
  if (a.has(ATTR.providerName)) return 'provider.call';
  const op = String(first(a, namesOf(SEMCONV.operationType)) ?? '');
  const opName = String(a.get(SEMCONV.operationName) ?? '');
  if (op === 'settle' || SETTLE_NAMES.has(opName)) return 'settle';
  // A publish is an outbox's only when its instrumentation says so (acktrail.stage).
  if (['publish', 'send', 'create'].includes(op) || (op === '' && span.kind === SPAN_KIND.producer))
    return 'publish';
  if (
    ['process', 'receive', 'deliver'].includes(op) ||
    (op === '' && span.kind === SPAN_KIND.consumer)
  )
    return 'deliver';
  return null;
}

/** '<default>' (Java), 'amq.default' (.NET, Java stable): the default exchange, ''. */
export const exchangeName = (v: string | null): string | null =>
  v === '<default>' || v === 'amq.default' ? '' : v;

/** acktrail's settle outcome, where the span carries one (any instrumentation may set it). */
export function explicitOutcome(span: ReceivedSpan): SettleOutcome | null {
  const o = span.attributes.get(ATTR.settleOutcome);
  return typeof o === 'string' && SETTLE_OUTCOME_SET.has(o) ? (o as SettleOutcome) : null;
}
