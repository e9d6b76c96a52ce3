// Spans for the steps a pipeline performs between deliver and settle: the provider call (with its
// idempotency key and outcome) and the commit of the result, with the event id of the baggage
// (whoever's provider records them).
import { trace, SpanKind, SpanStatusCode, type Span } from '@opentelemetry/api';
import { ATTR, SEMCONV } from '@acktrail/conventions';
import { eventIdFromBaggage } from './baggage.js';

const tracer = () => trace.getTracer('@acktrail/instrument');

export interface ProviderCall {
  provider: string;
  idempotencyKey: string;
}

export interface ProviderOutcome {
  /** success, transient_error, permanent_error, timeout, idempotent_replay */
  outcome: string;
  statusCode: number | null;
}

/** Runs the call to an external provider in a "provider.call" span and records its outcome. */
export async function withProviderCall<T extends ProviderOutcome>(
  call: ProviderCall,
  fn: () => Promise<T>,
): Promise<T> {
  return tracer().startActiveSpan(
    `provider ${call.provider}`,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        ...eventIdFromBaggage(),
        [ATTR.stage]: 'provider.call',
        [ATTR.providerName]: call.provider,
        [ATTR.providerKey]: call.idempotencyKey,
      },
    },
    async (span: Span) => {
      try {
        const result = await fn();
        span.setAttribute(ATTR.providerOutcome, result.outcome);
        if (result.statusCode !== null) span.setAttribute(SEMCONV.httpStatus, result.statusCode);
        if (result.outcome !== 'success' && result.outcome !== 'idempotent_replay') {
          span.setAttribute(SEMCONV.errorType, result.outcome);
          span.setStatus({ code: SpanStatusCode.ERROR, message: result.outcome });
        }
        return result;
      } catch (err) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
        throw err;
      } finally {
        span.end();
      }
    },
  );
}

/** Runs the transaction that records a delivery's result in a "result.commit" span. */
export async function withResultCommit<T>(fn: () => Promise<T>): Promise<T> {
  return tracer().startActiveSpan(
    'result commit',
    { attributes: { ...eventIdFromBaggage(), [ATTR.stage]: 'result.commit' } },
    async (span: Span) => {
      try {
        return await fn();
      } catch (err) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
        throw err;
      } finally {
        span.end();
      }
    },
  );
}
