// The trace context a message carries, as a journey key. Every instrumentation propagates its
// publish span's context in the message's headers (W3C traceparent): the consumer span names it
// as its parent (amqplib, the Java agent, Python, Spring, .NET by default) or as a link (v1.43
// semconv, .NET with UsePublisherAsParent off). "<trace id>-<span id>" of that context is the
// message's key: the journey of spans that carry no event id, and what ties the spans of one
// message together when some of them carry one and some do not (journeys/service.ts).
import { contextKey, TRACE_ID } from '../model/keys.js';
import type { Stage } from '../model/steps.js';
import type { ReceivedSpan, SpanLink } from '../profiles/index.js';

export { contextKey };

const SPAN_ID = /^[0-9a-f]{16}$/;
const valid = (l: SpanLink) =>
  TRACE_ID.test(l.traceId) &&
  SPAN_ID.test(l.spanId) &&
  !/^0+$/.test(l.traceId) &&
  !/^0+$/.test(l.spanId);

/**
 * The message's creation context: a publish's own span; a delivery's first valid link (the
 * creation context, in the v1.43 conventions), else its parent. Null for other stages, and for a
 * delivery that names neither (its publisher propagated nothing).
 */
export function messageKeyOf(span: ReceivedSpan, stage: Stage): string | null {
  if (stage === 'publish' || stage === 'outbox.publish')
    return contextKey(span.traceId, span.spanId);
  if (stage !== 'deliver') return null;
  const link = span.links.find(valid);
  if (link) return contextKey(link.traceId, link.spanId);
  const parent = { traceId: span.traceId, spanId: span.parentSpanId };
  return valid(parent) ? contextKey(parent.traceId, parent.spanId) : null;
}

/**
 * Every message a delivery names by a link: a batch receive links each message's creation context
 * (the messaging conventions' shape for a span that stands for many messages). Empty for other
 * stages and for a delivery with fewer than two distinct valid links (messageKeyOf reads those).
 */
export function batchKeysOf(span: ReceivedSpan, stage: Stage): string[] {
  if (stage !== 'deliver' || span.links.length < 2) return [];
  const keys = [...new Set(span.links.filter(valid).map((l) => contextKey(l.traceId, l.spanId)))];
  return keys.length > 1 ? keys : [];
}

/**
 * The journey of a span that carries no event id: its message's key; for a settle or any other
 * step, its parent's own context (a settle span is the child of its delivery, whose key the
 * journey service follows). Null when there is none: the caller keys the span by itself.
 */
export function journeyKeyOf(
  span: ReceivedSpan,
  stage: Stage,
  messageKey: string | null,
): string | null {
  if (messageKey !== null) return messageKey;
  if (stage === 'deliver') return null;
  const parent = { traceId: span.traceId, spanId: span.parentSpanId };
  return valid(parent) ? contextKey(parent.traceId, parent.spanId) : null;
}
