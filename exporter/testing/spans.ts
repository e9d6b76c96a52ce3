// Span reading's parts that tests and benches drive directly (decoding and normalising a body,
// the OTLP schema, the receiver's piece bound): @acktrail/exporter/testing/spans.
export { decodeProtobuf } from '../src/journeys/spans/decode.js';
export { normalise } from '../src/journeys/spans/normalize.js';
export { ExportTraceServiceRequest } from '../src/journeys/spans/otlp-schema.js';
export { MAX_PIECES } from '../src/receiver/pieces.js';
export { convertSpans } from '../src/journeys/spans/convert.js';
