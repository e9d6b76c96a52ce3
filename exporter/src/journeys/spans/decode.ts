// OTLP/HTTP request bodies (protobuf or JSON, already inflated) -> ReceivedSpan[]. Anything that
// is not a well-formed ExportTraceServiceRequest throws DecodeError (the route answers 400); a
// span whose own fields are wrong is still returned, and normalise() rejects it with a reason.
import protobuf from 'protobufjs/light.js';
import { bounded } from '../model/scrub.js';
import { ExportTraceServiceRequest } from './otlp-schema.js';
import {
  DecodeError,
  MAX_LINKS,
  MAX_TRACE_STATE,
  type AttributeValue,
  type ReceivedSpan,
  type SpanLink,
  type SpanScope,
} from '../profiles/index.js';

/**
 * Strings are cut here, before anything reads them: past this length nothing of a string is
 * stored (scrub keeps 200 characters), and a longer value only has to be known as too long.
 */
const MAX_VALUE = 1024;
/** Longer than any attribute name acktrail reads; a longer key can be dropped unread. */
const MAX_KEY = 128;
const ID_HEX = 32;
/** A scope's name and version: longer than any instrumentation's (profiles.ts). */
const MAX_SCOPE = 128;

interface LongLike {
  low: number;
  high: number;
}

/** fixed64 nanoseconds -> microseconds, without going through a float of the nanoseconds. */
function nanosToMicros(v: unknown): number {
  if (typeof v === 'number') return Math.round(v / 1000);
  if (typeof v === 'string') {
    // Cut before the scan: a fixed64 has at most 20 digits.
    if (v.length > 20 || !/^\d+$/.test(v)) return Number.NaN;
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
    if (!v || kv.key.length > MAX_KEY) continue;
    // protobufjs sets only the field present on the wire as an own property.
    if (Object.hasOwn(v, 'stringValue')) out.set(kv.key, bounded(v.stringValue!, MAX_VALUE));
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
      scope?: { name?: string; version?: string };
      spans: {
        traceId: Uint8Array;
        spanId: Uint8Array;
        traceState?: string;
        parentSpanId: Uint8Array;
        name: string;
        kind: number;
        startTimeUnixNano: unknown;
        endTimeUnixNano: unknown;
        attributes: PbKeyValue[];
        links?: { traceId: Uint8Array; spanId: Uint8Array }[];
        status?: { code: number; message: string };
      }[];
    }[];
  }[];
}

/** Where a length-delimited field `field` occurs in `reader`'s message: calls `each` per value. */
function eachField(reader: protobuf.Reader, field: number, each: (r: protobuf.Reader) => void) {
  while (reader.pos < reader.len) {
    const tag = reader.uint32();
    if (tag >>> 3 === field && (tag & 7) === 2) each(protobuf.Reader.create(reader.bytes()));
    else reader.skipType(tag & 7);
  }
}

/**
 * Spans in an ExportTraceServiceRequest, counted on the wire (resource_spans = 1, scope_spans = 2,
 * spans = 2) without decoding them: an oversized request is refused before it is materialised.
 */
function countSpans(body: Buffer): number {
  let n = 0;
  eachField(protobuf.Reader.create(body), 1, (rs) => {
    eachField(rs, 2, (ss) => {
      eachField(ss, 2, () => n++);
    });
  });
  return n;
}

function tooMany(n: number, max: number): DecodeError {
  return new DecodeError(
    `${n} spans in one request; at most ${max} (lower the exporter's batch size, e.g. OTEL_BSP_MAX_EXPORT_BATCH_SIZE)`,
    true,
  );
}

export function decodeProtobuf(body: Buffer, maxSpans = Infinity): ReceivedSpan[] {
  let req: PbRequest;
  try {
    const n = countSpans(body);
    if (n > maxSpans) throw tooMany(n, maxSpans);
    req = ExportTraceServiceRequest.decode(body) as unknown as PbRequest;
  } catch (err) {
    if (err instanceof DecodeError || err instanceof RangeError) throw err;
    throw new DecodeError(`invalid protobuf ExportTraceServiceRequest: ${(err as Error).message}`);
  }
  const spans: ReceivedSpan[] = [];
  for (const rs of req.resourceSpans) {
    const service = String(pbAttributes(rs.resource?.attributes).get('service.name') ?? 'unknown');
    for (const ss of rs.scopeSpans) {
      const scope: SpanScope = {
        name: bounded(ss.scope?.name ?? '', MAX_SCOPE),
        version: bounded(ss.scope?.version ?? '', MAX_SCOPE),
      };
      for (const s of ss.spans) {
        spans.push({
          traceId: hex(s.traceId),
          spanId: hex(s.spanId),
          parentSpanId: hex(s.parentSpanId),
          name: bounded(s.name, MAX_VALUE),
          kind: s.kind,
          startUs: nanosToMicros(s.startTimeUnixNano),
          endUs: nanosToMicros(s.endTimeUnixNano),
          attributes: pbAttributes(s.attributes),
          statusCode: s.status?.code ?? 0,
          statusMessage: bounded(s.status?.message ?? '', MAX_VALUE),
          service,
          scope,
          links: (s.links ?? [])
            .slice(0, MAX_LINKS)
            .map((l) => ({ traceId: hex(l.traceId), spanId: hex(l.spanId) })),
          traceState: bounded(s.traceState ?? '', MAX_TRACE_STATE),
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
    if (kv.key.length > MAX_KEY) continue;
    if (typeof value.stringValue === 'string')
      out.set(kv.key, bounded(value.stringValue, MAX_VALUE));
    else if (typeof value.boolValue === 'boolean') out.set(kv.key, value.boolValue);
    else if (typeof value.intValue === 'number') out.set(kv.key, value.intValue);
    else if (typeof value.intValue === 'string')
      // An int64 has at most 20 characters; a longer string is not one.
      out.set(kv.key, value.intValue.length <= 20 ? Number(value.intValue) : Number.NaN);
    else if (typeof value.doubleValue === 'number') out.set(kv.key, value.doubleValue);
  }
  return out;
}

const str = (v: Json, max = MAX_VALUE): string => (typeof v === 'string' ? bounded(v, max) : '');
const int = (v: Json): number => (typeof v === 'number' && Number.isInteger(v) ? v : 0);

function jsonScope(v: Json): SpanScope {
  const scope = obj(v, 'scope');
  return { name: str(scope.name, MAX_SCOPE), version: str(scope.version, MAX_SCOPE) };
}

/** The first MAX_LINKS links; the rest are not read. */
function jsonLinks(v: Json): SpanLink[] {
  return list(v, 'links')
    .slice(0, MAX_LINKS)
    .map((item) => {
      const l = obj(item, 'links[]');
      return {
        traceId: str(l.traceId, ID_HEX).toLowerCase(),
        spanId: str(l.spanId, ID_HEX).toLowerCase(),
      };
    });
}

export function decodeJson(body: Buffer, maxSpans = Infinity): ReceivedSpan[] {
  let parsed: Json;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch (err) {
    throw new DecodeError(`invalid JSON: ${(err as Error).message}`);
  }
  const resourceSpans = list(obj(parsed, 'body').resourceSpans, 'resourceSpans');
  let n = 0;
  for (const rs of resourceSpans)
    for (const ss of list(obj(rs, 'resourceSpans[]').scopeSpans, 'scopeSpans'))
      n += list(obj(ss, 'scopeSpans[]').spans, 'spans').length;
  if (n > maxSpans) throw tooMany(n, maxSpans);
  const spans: ReceivedSpan[] = [];
  for (const rsItem of resourceSpans) {
    const rs = obj(rsItem, 'resourceSpans[]');
    const resource = obj(rs.resource, 'resource');
    const service = String(
      jsonAttributes(resource.attributes, 'resource.attributes').get('service.name') ?? 'unknown',
    );
    for (const ssItem of list(rs.scopeSpans, 'scopeSpans')) {
      const scope = jsonScope(obj(ssItem, 'scopeSpans[]').scope);
      for (const spanItem of list(obj(ssItem, 'scopeSpans[]').spans, 'spans')) {
        const s = obj(spanItem, 'spans[]');
        const status = obj(s.status, 'status');
        spans.push({
          traceId: str(s.traceId, ID_HEX).toLowerCase(),
          spanId: str(s.spanId, ID_HEX).toLowerCase(),
          parentSpanId: str(s.parentSpanId, ID_HEX).toLowerCase(),
          name: str(s.name),
          kind: int(s.kind),
          startUs: nanosToMicros(s.startTimeUnixNano),
          endUs: nanosToMicros(s.endTimeUnixNano),
          attributes: jsonAttributes(s.attributes, 'span.attributes'),
          statusCode: int(status.code),
          statusMessage: str(status.message),
          service,
          scope,
          links: jsonLinks(s.links),
          traceState: str(s.traceState, MAX_TRACE_STATE),
        });
      }
    }
  }
  return spans;
}
