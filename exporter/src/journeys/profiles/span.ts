// The span shape the receiver hands on, whatever the wire format was.
import type { AttributeValue } from '@acktrail/conventions';

export type { AttributeValue };

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** OTLP SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  /** Microseconds since the epoch. */
  startUs: number;
  endUs: number;
  attributes: Map<string, AttributeValue>;
  /** OTLP StatusCode: 0 unset, 1 ok, 2 error. */
  statusCode: number;
  statusMessage: string;
  /** Resource attribute service.name. */
  service: string;
  /** Who wrote the span: its instrumentation scope (profiles.ts reads spans by it). */
  scope: SpanScope;
  /** The span's first links (at most MAX_LINKS), as the SDK wrote them: unchecked ids. */
  links: SpanLink[];
  /** W3C tracestate of the span's context ('' none), cut at 512 characters (its maximum). */
  traceState: string;
}

/** An OTLP InstrumentationScope: '' where the SDK named none. */
export interface SpanScope {
  name: string;
  version: string;
}

/** A link to another span: the producer's context a consumer span names (messaging semconv). */
export interface SpanLink {
  traceId: string;
  spanId: string;
}

/**
 * Links kept per span: a consumer span links its message's creation context; a batch receive links
 * each of its messages, and joins the journeys of the first MAX_LINKS (a step each: the bound on
 * what one span can add).
 */
export const MAX_LINKS = 32;

/** W3C trace-context's limit on tracestate. */
export const MAX_TRACE_STATE = 512;

export const NO_SCOPE: SpanScope = { name: '', version: '' };

export class DecodeError extends Error {
  /** @param tooMany the request holds more spans than the receiver takes in one (413). */
  constructor(
    message: string,
    readonly tooMany = false,
  ) {
    super(message);
  }
}
