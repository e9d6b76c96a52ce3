// The part of the OTLP trace protocol acktrail reads, written from the field numbers of
// opentelemetry-proto (collector/trace/v1/trace_service.proto, trace/v1/trace.proto,
// common/v1/common.proto, resource/v1/resource.proto) and google.rpc.Status.
//
// Fields acktrail does not read are left out on purpose: the decoder skips unknown fields, as the
// spec requires. That includes span events, a link's attributes, and AnyValue's array, kvlist and
// bytes values, so no body, however deeply it nests, makes the decoder recurse.
import protobuf from 'protobufjs/light.js';

// 64-bit integers as JavaScript numbers instead of Long objects: fewer allocations per span. Times
// in nanoseconds since 1970 then keep a precision of 256 ns, finer than the microseconds stored.
protobuf.util.Long = undefined as unknown as typeof protobuf.util.Long;
protobuf.configure();

const root = protobuf.Root.fromJSON({
  nested: {
    otlp: {
      nested: {
        ExportTraceServiceRequest: {
          fields: { resourceSpans: { rule: 'repeated', type: 'ResourceSpans', id: 1 } },
        },
        ResourceSpans: {
          fields: {
            resource: { type: 'Resource', id: 1 },
            scopeSpans: { rule: 'repeated', type: 'ScopeSpans', id: 2 },
          },
        },
        Resource: { fields: { attributes: { rule: 'repeated', type: 'KeyValue', id: 1 } } },
        ScopeSpans: {
          fields: {
            scope: { type: 'InstrumentationScope', id: 1 },
            spans: { rule: 'repeated', type: 'Span', id: 2 },
          },
        },
        InstrumentationScope: {
          fields: { name: { type: 'string', id: 1 }, version: { type: 'string', id: 2 } },
        },
        Span: {
          fields: {
            traceId: { type: 'bytes', id: 1 },
            spanId: { type: 'bytes', id: 2 },
            traceState: { type: 'string', id: 3 },
            parentSpanId: { type: 'bytes', id: 4 },
            name: { type: 'string', id: 5 },
            kind: { type: 'int32', id: 6 },
            startTimeUnixNano: { type: 'fixed64', id: 7 },
            endTimeUnixNano: { type: 'fixed64', id: 8 },
            attributes: { rule: 'repeated', type: 'KeyValue', id: 9 },
            links: { rule: 'repeated', type: 'Link', id: 13 },
            status: { type: 'Status', id: 15 },
          },
        },
        Link: { fields: { traceId: { type: 'bytes', id: 1 }, spanId: { type: 'bytes', id: 2 } } },
        Status: { fields: { message: { type: 'string', id: 2 }, code: { type: 'int32', id: 3 } } },
        KeyValue: {
          fields: { key: { type: 'string', id: 1 }, value: { type: 'AnyValue', id: 2 } },
        },
        AnyValue: {
          // A oneof, as OTLP declares it: a member set to its default (false, 0, '') is kept.
          oneofs: { value: { oneof: ['stringValue', 'boolValue', 'intValue', 'doubleValue'] } },
          fields: {
            stringValue: { type: 'string', id: 1 },
            boolValue: { type: 'bool', id: 2 },
            intValue: { type: 'int64', id: 3 },
            doubleValue: { type: 'double', id: 4 },
          },
        },
        ExportTraceServiceResponse: {
          fields: { partialSuccess: { type: 'ExportTracePartialSuccess', id: 1 } },
        },
        ExportTracePartialSuccess: {
          fields: {
            rejectedSpans: { type: 'int64', id: 1 },
            errorMessage: { type: 'string', id: 2 },
          },
        },
        RpcStatus: {
          fields: { code: { type: 'int32', id: 1 }, message: { type: 'string', id: 2 } },
        },
      },
    },
  },
});

export const ExportTraceServiceRequest = root.lookupType('otlp.ExportTraceServiceRequest');
export const ExportTraceServiceResponse = root.lookupType('otlp.ExportTraceServiceResponse');
export const RpcStatus = root.lookupType('otlp.RpcStatus');
