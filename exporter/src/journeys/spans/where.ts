// Where a message went, completed from the broker's topology on the event loop (the decoding
// worker has none): a delivery whose span names only the exchange and routing key (.NET's,
// Python's) gets the queue when the bindings route it to exactly one, marked as inferred; a name
// that is the exchange, or the queue on the default exchange (Python's spans), is told apart by
// the queues and exchanges the broker lists. Where the topology cannot say, nothing is guessed:
// the step keeps no queue, and coverage counts the gap.
import { ATTR, SEMCONV, isPublish } from '@acktrail/conventions';
import type { ExchangeIndex } from '../../broker/routes.js';
import { STEP_ATTR, type Step } from '../model/steps.js';

const str = (v: unknown) => (typeof v === 'string' ? v : null);

/** Completes the steps' exchange, routing key and queue in place. */
export function withWhere(steps: Step[], exchanges: ExchangeIndex): void {
  const inferred = new Map<string, string>();
  for (const step of steps) {
    if (step.stage !== 'deliver' && !isPublish(step.stage)) continue;
    const a = step.attrs;
    const either = str(a[STEP_ATTR.exchangeOrQueue]);
    if (either !== null && a[SEMCONV.destination] === undefined) {
      if (exchanges.isExchange(either)) a[SEMCONV.destination] = either;
      else if (exchanges.isQueue(either)) {
        a[SEMCONV.destination] = '';
        a[SEMCONV.routingKey] ??= either;
        if (step.stage === 'deliver') a[ATTR.queue] ??= either;
      }
    }
    const exchange = str(a[SEMCONV.destination]);
    if (step.stage !== 'deliver' || a[ATTR.queue] !== undefined || exchange === null) continue;
    const reached = exchanges.reached(exchange, str(a[SEMCONV.routingKey]));
    if (reached.length !== 1) continue;
    a[ATTR.queue] = reached[0]!;
    a[STEP_ATTR.queueInferred] = true;
    inferred.set(step.spanId, reached[0]!);
  }
  // A settle derived from a delivery's span names the delivery's queue.
  for (const step of steps) {
    const queue = step.parentSpanId === null ? undefined : inferred.get(step.parentSpanId);
    if (step.stage === 'settle' && queue !== undefined && step.attrs[ATTR.queue] === undefined)
      step.attrs[ATTR.queue] = queue;
  }
}
