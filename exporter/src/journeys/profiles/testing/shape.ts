// The kit each SDK's shape is written with (<id>/<id>.shape.ts): spans exactly as an instrumentation
// writes them today, taken from its own source at a pinned version (each shape names the files).
// They guard every journey rule: the unit tests turn them into decoded spans (shapeSpans below),
// and the integration tests' client (test/fixtures/sdk-client.ts) emits them with the
// OpenTelemetry SDK around real messages through RabbitMQ. Attribute values that come from the
// connection (addresses, ports) are written as the instrumentation writes them, with this
// machine's values.
import type { AttributeValue } from '@acktrail/conventions';
import type { ProfileId } from '../profile.js';
import type { ReceivedSpan } from '../span.js';

/** OTLP span kinds. */
export const KIND = { internal: 1, client: 3, producer: 4, consumer: 5 } as const;

export interface ShapeSpan {
  name: string;
  kind: number;
  attributes: Record<string, AttributeValue>;
  /** OTLP status: code 0 unset, 1 ok, 2 error. */
  status?: { code: number; message?: string };
}

/** What the client knows of one message and its delivery. */
export interface Message {
  exchange: string;
  routingKey: string;
  queue: string;
  /** The AMQP message-id property the publisher set, if it did. */
  messageId: string | null;
  deliveryTag: number;
  bodySize: number;
}

/** How the handler settled a delivery (`none`: it did not; the message stays unacked). */
export type Settle = { op: 'ack' } | { op: 'nack' | 'reject'; requeue: boolean } | { op: 'none' };

export interface SdkShape {
  /** The name tests use for it: its profile's id, or a variant's (java-agent-stable). */
  name: string;
  profile: ProfileId;
  /** The instrumentation scope its spans carry (name, version; acktrail reads the name only). */
  scope: { name: string; version: string };
  /** The scope of its publish spans, where the SDK writes them under another name (.NET's). */
  publishScope?: { name: string; version: string };
  /** The repository, tag and files the shape was read from. */
  source: string;
  publish(m: Message): ShapeSpan;
  /** The consumer span, ended as the instrumentation ends it for this settle. */
  deliver(m: Message, settle: Settle): ShapeSpan;
  /** How the consumer span names the message's creation context. */
  creation: 'parent' | 'link' | 'parent+link';
  /** A settle span of its own, a child of the consumer span; null: none is written. */
  settleSpan(m: Message, settle: Settle): ShapeSpan | null;
  /**
   * A receive span that starts a trace of its own and is the consumer span's parent (the consumer
   * span then links the creation context: `creation` is 'link').
   */
  receive?(m: Message): ShapeSpan;
  /**
   * Where the framework moves a message its consumer faulted on (MassTransit's "<queue>_error"),
   * acking the original: a reject without requeue is that move, not a reject.
   */
  faultQueue?(queue: string): string;
  /**
   * The handler's span inside the consumer span (MassTransit's "<endpoint> process"), ended as
   * the handler ends for this settle: in error where it threw.
   */
  handler?(m: Message, settle: Settle): ShapeSpan;
}

/** The exception a faulting handler throws in the shapes (its message is the span's status). */
export const HANDLER_FAULT = 'Card declined: insufficient funds';

/** A span as the receiver decodes it, for the unit tests. */
export interface DecodedShape {
  span: ShapeSpan;
  scope: { name: string; version: string };
  traceId: string;
  spanId: string;
  parentSpanId: string;
  links: { traceId: string; spanId: string }[];
  startMs: number;
  endMs: number;
}

let nextId = 1;
const id16 = () => (nextId++).toString(16).padStart(16, '0');

/**
 * One message's spans as the shape writes them, for deliveries settled so: the publish (its
 * context propagated in the headers), then per delivery the consumer span (the creation context
 * as parent and/or link) and its settle span where the shape writes one. Times from `t0` (ms).
 */
export function shapeSpans(
  shape: SdkShape,
  m: Message,
  settles: Settle[],
  t0: number,
  traceId = 'c0'.repeat(16),
): DecodedShape[] {
  const publishId = id16();
  const out: DecodedShape[] = [
    {
      span: shape.publish(m),
      scope: shape.publishScope ?? shape.scope,
      traceId,
      spanId: publishId,
      parentSpanId: '',
      links: [],
      startMs: t0,
      endMs: t0 + 2,
    },
  ];
  settles.forEach((settle, i) => {
    const at = t0 + 100 * (i + 1);
    const consumerId = id16();
    // A receive span of its own (Bunny's) starts a trace that the consumer span continues.
    const receiveId = shape.receive ? id16() : '';
    const consumerTrace = shape.receive
      ? (i + 1).toString(16).padStart(2, '0').repeat(16)
      : traceId;
    if (shape.receive)
      out.push({
        span: shape.receive({ ...m, deliveryTag: m.deliveryTag + i }),
        scope: shape.scope,
        traceId: consumerTrace,
        spanId: receiveId,
        parentSpanId: '',
        links: [],
        startMs: at - 1,
        endMs: at,
      });
    // With a link, the v1.43 consumer span may start a trace of its own (.NET without
    // UsePublisherAsParent); the shapes here keep the defaults: parent and link.
    out.push({
      span: shape.deliver({ ...m, deliveryTag: m.deliveryTag + i }, settle),
      scope: shape.scope,
      traceId: consumerTrace,
      spanId: consumerId,
      parentSpanId: shape.receive ? receiveId : shape.creation === 'link' ? '' : publishId,
      links: shape.creation === 'parent' ? [] : [{ traceId, spanId: publishId }],
      startMs: at,
      endMs: at + 20,
    });
    const handler = shape.handler?.({ ...m, deliveryTag: m.deliveryTag + i }, settle);
    if (handler)
      out.push({
        span: handler,
        scope: shape.scope,
        traceId: consumerTrace,
        spanId: id16(),
        parentSpanId: consumerId,
        links: [],
        startMs: at + 2,
        endMs: at + 9,
      });
    const settleSpan = shape.settleSpan({ ...m, deliveryTag: m.deliveryTag + i }, settle);
    if (settleSpan)
      out.push({
        span: settleSpan,
        scope: shape.scope,
        traceId: consumerTrace,
        spanId: id16(),
        parentSpanId: consumerId,
        links: [],
        startMs: at + 10,
        endMs: at + 11,
      });
  });
  return out;
}

/** A shape's span as the receiver decodes it. */
export const received = (d: DecodedShape, service = 'shop-worker'): ReceivedSpan => ({
  traceId: d.traceId,
  spanId: d.spanId,
  parentSpanId: d.parentSpanId,
  name: d.span.name,
  kind: d.span.kind,
  startUs: d.startMs * 1000,
  endUs: d.endMs * 1000,
  attributes: new Map(Object.entries(d.span.attributes)),
  statusCode: d.span.status?.code ?? 0,
  statusMessage: d.span.status?.message ?? '',
  service,
  scope: d.scope,
  links: d.links,
  traceState: '',
});
