// The outbox pattern's trace context (as in Debezium's outbox): the writer stores the W3C trace
// context and baggage in the outbox row, and the relay continues it, so that one trace runs from
// the HTTP request through the publish to the final ack.
import {
  context,
  createContextKey,
  propagation,
  trace,
  SpanKind,
  SpanStatusCode,
  type Context,
} from '@opentelemetry/api';
import { ATTR } from '@acktrail/conventions';
import { withEventBaggage } from './baggage.js';

const tracer = () => trace.getTracer('@acktrail/instrument');

export type TraceCarrier = Record<string, string>;

export interface OutboxEvent {
  eventId: string;
  aggregateType?: string;
  aggregateId?: string | number;
  aggregateVersion?: number;
}

/**
 * Runs `write` (the INSERT of the outbox row, inside the business transaction) in an
 * "outbox.insert" span with the event id in baggage, and hands it the carrier to store with
 * the row (traceparent, tracestate, baggage).
 */
export async function withOutboxInsert<T>(
  event: OutboxEvent,
  write: (carrier: TraceCarrier) => Promise<T>,
): Promise<T> {
  const ctx = withEventBaggage(context.active(), event.eventId);
  const span = tracer().startSpan(
    'outbox insert',
    {
      kind: SpanKind.INTERNAL,
      attributes: {
        [ATTR.stage]: 'outbox.insert',
        [ATTR.eventId]: event.eventId,
        ...(event.aggregateType ? { [ATTR.aggregateType]: event.aggregateType } : {}),
        ...(event.aggregateId !== undefined
          ? { [ATTR.aggregateId]: String(event.aggregateId) }
          : {}),
        ...(event.aggregateVersion !== undefined
          ? { [ATTR.aggregateVersion]: event.aggregateVersion }
          : {}),
      },
    },
    ctx,
  );
  const spanCtx = trace.setSpan(ctx, span);
  const carrier: TraceCarrier = {};
  propagation.inject(spanCtx, carrier);
  try {
    return await context.with(spanCtx, () => write(carrier));
  } catch (err) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
    throw err;
  } finally {
    span.end();
  }
}

const RELAYING = createContextKey('acktrail.outbox.relaying');

/** Whether `ctx` is a relay's publish of an outbox row (its publishes are `outbox.publish`). */
export const relayingOutbox = (ctx: Context = context.active()): boolean =>
  ctx.getValue(RELAYING) === true;

/** Runs `fn` (the relay's publish of one row) in the context stored with the row. */
export function continueFromOutbox<T>(
  carrier: TraceCarrier | null | undefined,
  eventId: string,
  fn: () => T,
): T {
  const extracted = propagation.extract(context.active(), carrier ?? {});
  return context.with(withEventBaggage(extracted, eventId).setValue(RELAYING, true), fn);
}
