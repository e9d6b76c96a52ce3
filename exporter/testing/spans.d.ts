export { decodeProtobuf } from '../src/journeys/spans/decode.js';
export { normalise } from '../src/journeys/spans/normalize.js';
export { ExportTraceServiceRequest } from '../src/journeys/spans/otlp-schema.js';
export { MAX_PIECES } from '../src/receiver/pieces.js';
