// Span reading, the receiver's one door to it: an OTLP body decoded (decode.ts, otlp-schema.ts)
// and read span by span as its instrumentation writes it (profiles/), normalised into steps
// (normalize.ts), keyed by its message where it has no event id (message-keys.ts), placed where
// the broker sent it (where.ts) and tallied for coverage (coverage-tally.ts); convert.ts does all
// of it for one body. The receiver (transport: HTTP, gRPC, the ingest thread, the gate) reads
// bodies and hands them here; it imports nothing else of this folder.
export { convert, withQueueAnomalies, type Converted } from './convert.js';
export type { Window } from './normalize.js';
export { DecodeError, type ReceivedSpan } from '../profiles/index.js';
export { ExportTraceServiceRequest, ExportTraceServiceResponse, RpcStatus } from './otlp-schema.js';
export { PROFILES, type ProfileId } from '../profiles/index.js';
export {
  AGGREGATE_FIX,
  BY_ATTRIBUTE,
  rowIn,
  tallyCoverage,
  type Check,
  type CoverageTally,
  type Row,
} from './coverage-tally.js';
