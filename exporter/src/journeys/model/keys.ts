// Journey keys that are not event ids: a span context, "<trace id>-<span id>". A span without an
// event id is keyed by its message's trace context (journeys/spans/message-keys.ts), a settle span by
// its delivery's; the journey service follows these keys from one journey's steps to the next.

/** "<trace id>-<span id>": a span context as a journey key. */
export const contextKey = (traceId: string, spanId: string): string => `${traceId}-${spanId}`;

/** The shape of a context key (journey ids that are not event ids look like this). */
export const CONTEXT_KEY = /^[0-9a-f]{32}-[0-9a-f]{16}$/;

/** A trace id, as the API and the search box take one. */
export const TRACE_ID = /^[0-9a-f]{32}$/;
