// The OpenTelemetry Java agent's RabbitMQ instrumentations (rabbitmq-2.7, spring-rabbit-1.0): settle
// spans (basic.ack) as children of the process span; old and v1.43 destination names.
import { ATTR, SEMCONV } from '@acktrail/conventions';
import type { ProfileModule } from '../profile.js';
import { SPAN_KIND, exchangeName } from '../semconv.js';
const SETTLE_ATTR = ATTR.settleOutcome;
const REDELIVERED = ATTR.redelivered;

const RABBITMQ_SCOPE = 'io.opentelemetry.rabbitmq-2.7';
const JAVA_SCOPES = new Set([RABBITMQ_SCOPE, 'io.opentelemetry.spring-rabbit-1.0']);

/** Its settle spans: "basic.ack" (old semconv, renamed from "Channel.basicAck"). */
const JAVA_SETTLE = /^(?:basic\.|Channel\.basic)(ack|nack|reject)$/i;

/**
 * The v1.43 destination: "<exchange>:<key>" on a publish, "<exchange>:<key>:<queue>" on a delivery
 * (the queue left out when it equals the key), empty parts dropped. The routing key, recorded on
 * its own, says where the parts meet.
 */
function stableDestination(
  dest: string,
  key: string | null,
): { exchange: string | null; queue: string | null } {
  if (dest === 'amq.default') return { exchange: '', queue: null };
  if (key === null || key === '') {
    const [exchange, ...rest] = dest.split(':');
    return { exchange: exchange ?? null, queue: rest.length === 1 ? rest[0]! : null };
  }
  if (dest === key) return { exchange: '', queue: key };
  if (dest.endsWith(`:${key}`)) return { exchange: dest.slice(0, -key.length - 1), queue: key };
  if (dest.startsWith(`${key}:`)) return { exchange: '', queue: dest.slice(key.length + 1) };
  const at = dest.indexOf(`:${key}:`);
  return at >= 0
    ? { exchange: dest.slice(0, at), queue: dest.slice(at + key.length + 2) }
    : { exchange: null, queue: null };
}

export const javaAgent: ProfileModule = {
  profile: {
    id: 'java-agent',
    sdk: 'OpenTelemetry Java agent (rabbitmq-2.7)',
    source:
      'opentelemetry-java-instrumentation v2.31.0 instrumentation/rabbitmq-2.7 (RabbitSingletons, RabbitChannelInstrumentation, RabbitInstrumenterHelper, DeliveryRequest)',
    settle: 'settle-spans-in-handler',
    fix: {
      event_id:
        'the agent records no message id: in handleDelivery, Span.current().setAttribute("acktrail.event_id", properties.getMessageId()); without it the journey is found by its trace id',
      queue:
        'the process span is named "<queue> process" (stable semconv: process <exchange>:<key>:<queue>); a generated queue is not named',
      delivery_attempt: `in handleDelivery: Span.current().setAttribute("${REDELIVERED}", envelope.isRedeliver())`,
      settle: `the agent records basic.ack, basic.nack and basic.reject as children of the process span when the handler calls them, not whether a nack requeues: Span.current().setAttribute("${SETTLE_ATTR}", requeue ? "nack_requeue" : "nack") before basicNack`,
    },
  },
  // Its others (HTTP, JDBC) are read by the conventions.
  wrote: (span) => JAVA_SCOPES.has(span.scope.name),
  stage(span, semconv) {
    // spring-rabbit-1.0's listener span runs inside rabbitmq-2.7's process span: one delivery.
    if (span.scope.name !== RABBITMQ_SCOPE) return null;
    if (span.kind === SPAN_KIND.client && JAVA_SETTLE.test(span.name)) return 'settle';
    return semconv(span);
  },
  settleOperation: (span) => JAVA_SETTLE.exec(span.name)?.[1] ?? null,
  where(where, { span, deliver, destination, routingKey, named, processName }) {
    if (span.attributes.has(SEMCONV.operationType) && destination !== null) {
      const parsed = stableDestination(destination, routingKey);
      return {
        ...where,
        exchange: parsed.exchange,
        queue: named ?? (deliver ? parsed.queue : null),
      };
    }
    // "<default> process", "<generated> process": no queue named.
    const queue = deliver && processName && !/^<.*>$/.test(processName) ? processName : null;
    return { ...where, exchange: exchangeName(destination), queue: named ?? queue };
  },
};
