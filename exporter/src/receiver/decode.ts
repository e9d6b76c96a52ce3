// OTLP/HTTP request bodies (protobuf or JSON, already inflated) -> ReceivedSpan[]. Anything that
// is not a well-formed ExportTraceServiceRequest throws DecodeError (the route answers 400); a
// span whose own fields are wrong is still returned, and normalise() rejects it with a reason.
import { ExportTraceServiceRequest } from './otlp-schema.js';
import { DecodeError, type AttributeValue, type ReceivedSpan } from './spans.js';

interface LongLike {
  low: number;
  high: number;
}

/** fixed64 nanoseconds -> microseconds, without going through a float of the nanoseconds. */
function nanosToMicros(v: unknown): number {
  if (typeof v === 'number') return Math.round(v / 1000);
  if (typeof v === 'string') {
    if (!/^\d{1,20}$/.test(v)) return Number.NaN;
    // Drop the last three digits: exact for any realistic time.
    return v.length <= 3 ? 0 : Number(v.slice(0, -3));
  }
  if (v && typeof v === 'object' && 'low' in v && 'high' in v) {
    const { low, high } = v as LongLike;
    return Math.round((high >>> 0) * 4_294_967.296 + (low >>> 0) / 1000);
  }
  return Number.NaN;
}

/** int64 (a Long from protobufjs, or a number) -> number; exact up to 2^53. */
function int64(v: unknown): number {
  if (typeof v === 'number') return v;
  if (v && typeof v === 'object' && 'low' in v && 'high' in v) {
    const { low, high } = v as LongLike;
    return high * 4_294_967_296 + (low >>> 0);
  }
  return Number(v);
}

function hex(bytes: unknown): string {
  if (Buffer.isBuffer(bytes)) return bytes.toString('hex');
  // A view on the same memory, not a copy.
  return bytes instanceof Uint8Array
    ? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')
    : '';
}

interface PbKeyValue {
  key: string;
  value?: { stringValue?: string; boolValue?: boolean; intValue?: unknown; doubleValue?: number };
}

function pbAttributes(list: PbKeyValue[] | undefined): Map<string, AttributeValue> {
  const out = new Map<string, AttributeValue>();
  if (!list) return out;
  for (const kv of list) {
    const v = kv.value;
    if (!v) continue;
    // protobufjs sets only the field present on the wire as an own property.
    if (Object.hasOwn(v, 'stringValue')) out.set(kv.key, v.stringValue!);
    else if (Object.hasOwn(v, 'intValue')) out.set(kv.key, int64(v.intValue));
    else if (Object.hasOwn(v, 'boolValue')) out.set(kv.key, v.boolValue!);
    else if (Object.hasOwn(v, 'doubleValue')) out.set(kv.key, v.doubleValue!);
  }
  return out;
}

interface PbRequest {
  resourceSpans: {
    resource?: { attributes: PbKeyValue[] };
    scopeSpans: {
      spans: {
        traceId: Uint8Array;
        spanId: Uint8Array;
        parentSpanId: Uint8Array;
        name: string;
        kind: number;
        startTimeUnixNano: unknown;
        endTimeUnixNano: unknown;
        attributes: PbKeyValue[];
        status?: { code: number; message: string };
      }[];
    }[];
  }[];
}

export function decodeProtobuf(body: Buffer): ReceivedSpan[] {
  let req: PbRequest;
  try {
    req = ExportTraceServiceRequest.decode(body) as unknown as PbRequest;
  } catch (err) {
    throw new DecodeError(`invalid protobuf ExportTraceServiceRequest: ${(err as Error).message}`);
  }
  const spans: ReceivedSpan[] = [];
  for (const rs of req.resourceSpans) {
    const service = String(pbAttributes(rs.resource?.attributes).get('service.name') ?? 'unknown');
    for (const ss of rs.scopeSpans) {
      for (const s of ss.spans) {
        spans.push({
          traceId: hex(s.traceId),
          spanId: hex(s.spanId),
          parentSpanId: hex(s.parentSpanId),
          name: s.name,
          kind: s.kind,
          startUs: nanosToMicros(s.startTimeUnixNano),
          endUs: nanosToMicros(s.endTimeUnixNano),
          attributes: pbAttributes(s.attributes),
          statusCode: s.status?.code ?? 0,
          statusMessage: s.status?.message ?? '',
          service,
        });
      }
    }
  }
  return spans;
}

// OTLP/JSON: lowerCamelCase keys, ids as hex strings, 64-bit integers as strings or numbers.
type Json = unknown;

function list(v: Json, where: string): Json[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new DecodeError(`${where} must be an array`);
  return v;
}

function obj(v: Json, where: string): Record<string, Json> {
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v))
    throw new DecodeError(`${where} must be an object`);
  return v as Record<string, Json>;
}

function jsonAttributes(v: Json, where: string): Map<string, AttributeValue> {
  const out = new Map<string, AttributeValue>();
  for (const item of list(v, where)) {
    const kv = obj(item, where);
    if (typeof kv.key !== 'string') throw new DecodeError(`${where}[].key must be a string`);
    const value = obj(kv.value, `${where}[].value`);
    if (typeof value.stringValue === 'string') out.set(kv.key, value.stringValue);
    else if (typeof value.boolValue === 'boolean') out.set(kv.key, value.boolValue);
    else if (typeof value.intValue === 'string' || typeof value.intValue === 'number')
      out.set(kv.key, Number(value.intValue));
    else if (typeof value.doubleValue === 'number') out.set(kv.key, value.doubleValue);
  }
  return out;
}

const str = (v: Json): string => (typeof v === 'string' ? v : '');
const int = (v: Json): number => (typeof v === 'number' && Number.isInteger(v) ? v : 0);

export function decodeJson(body: Buffer): ReceivedSpan[] {
  let parsed: Json;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch (err) {
    throw new DecodeError(`invalid JSON: ${(err as Error).message}`);
  }
  const spans: ReceivedSpan[] = [];
  for (const rsItem of list(obj(parsed, 'body').resourceSpans, 'resourceSpans')) {
    const rs = obj(rsItem, 'resourceSpans[]');
    const resource = obj(rs.resource, 'resource');
    const service = String(
      jsonAttributes(resource.attributes, 'resource.attributes').get('service.name') ?? 'unknown',
    );
    for (const ssItem of list(rs.scopeSpans, 'scopeSpans')) {
      for (const spanItem of list(obj(ssItem, 'scopeSpans[]').spans, 'spans')) {
        const s = obj(spanItem, 'spans[]');
        const status = obj(s.status, 'status');
        spans.push({
          traceId: str(s.traceId).toLowerCase(),
          spanId: str(s.spanId).toLowerCase(),
          parentSpanId: str(s.parentSpanId).toLowerCase(),
          name: str(s.name),
          kind: int(s.kind),
          startUs: nanosToMicros(s.startTimeUnixNano),
          endUs: nanosToMicros(s.endTimeUnixNano),
          attributes: jsonAttributes(s.attributes, 'span.attributes'),
          statusCode: int(status.code),
          statusMessage: str(status.message),
          service,
        });
      }
    }
  }
  return spans;
}
