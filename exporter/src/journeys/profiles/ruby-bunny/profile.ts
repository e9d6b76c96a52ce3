// The Bunny instrumentation (opentelemetry-ruby-contrib): a receive span of its own starts a
// trace; the delivery is its child, the process span, which links the publish.
import { ATTR } from '@acktrail/conventions';
import type { ProfileModule } from '../profile.js';
import { SPAN_KIND } from '../semconv.js';
const SETTLE_ATTR = ATTR.settleOutcome;
const REDELIVERED = ATTR.redelivered;

export const rubyBunny: ProfileModule = {
  profile: {
    id: 'ruby-bunny',
    sdk: 'OpenTelemetry Bunny instrumentation (Ruby)',
    source:
      'opentelemetry-ruby-contrib instrumentation/bunny 0.25.0 (patch_helpers.rb, patches/channel.rb, patches/consumer.rb, patches/reader_loop.rb)',
    settle: 'none',
    fix: {
      event_id:
        "the instrumentation records no message id: in the subscribe block, OpenTelemetry::Trace.current_span.set_attribute('acktrail.event_id', properties.message_id); without it the journey is found by the publish's trace id",
      queue: `the process span carries no attributes: in the subscribe block, OpenTelemetry::Trace.current_span.set_attribute('${ATTR.queue}', queue.name)`,
      delivery_attempt: `in the subscribe block: OpenTelemetry::Trace.current_span.set_attribute('${REDELIVERED}', delivery_info.redelivered?)`,
      settle: `the process span ends when the block returns and records no ack: OpenTelemetry::Trace.current_span.set_attribute('${SETTLE_ATTR}', 'ack') before channel.ack(delivery_info.delivery_tag)`,
    },
  },
  wrote: (span) => span.scope.name === 'OpenTelemetry::Instrumentation::Bunny',
  // The receive span (the reader loop's frame, or basic_get) links nothing: no step.
  stage: (span, semconv) =>
    span.kind === SPAN_KIND.consumer && !/ process$/.test(span.name) ? null : semconv(span),
};
