// Baggage carries acktrail.event_id across processes (W3C baggage header, in HTTP requests and
// AMQP message headers); this processor copies it onto every span as it starts, so database and
// HTTP spans of the same work carry the event id too.
import { context, propagation, type Attributes, type Context } from '@opentelemetry/api';
import type { Span, SpanProcessor } from '@opentelemetry/sdk-trace';
import { ATTR, EVENT_BAGGAGE } from '@acktrail/conventions';

/** The event id in the baggage of `ctx`, as span attributes (none when it has none). */
export function eventIdFromBaggage(ctx: Context = context.active()): Attributes {
  const value = propagation.getBaggage(ctx)?.getEntry(EVENT_BAGGAGE)?.value;
  return value === undefined ? {} : { [ATTR.eventId]: value };
}

export class EventBaggageSpanProcessor implements SpanProcessor {
  onStart(span: Span, parentContext: Context): void {
    const entry = propagation.getBaggage(parentContext)?.getEntry(EVENT_BAGGAGE);
    if (entry && span.attributes[ATTR.eventId] === undefined)
      span.setAttribute(ATTR.eventId, entry.value);
  }
  onEnd(): void {
    // nothing to do when a span ends
  }
  forceFlush(): Promise<void> {
    return Promise.resolve();
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/** `ctx` with the event id in its baggage (kept alongside any other entries). */
export function withEventBaggage(ctx: Context, eventId: string): Context {
  const current = propagation.getBaggage(ctx) ?? propagation.createBaggage();
  return propagation.setBaggage(ctx, current.setEntry(EVENT_BAGGAGE, { value: eventId }));
}
