// The decoder reads who wrote each span (its instrumentation scope) and the links a consumer span
// names its message's creation context by, from both wire formats, and bounds both.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeJson, decodeProtobuf } from './decode.js';
import { ExportTraceServiceRequest } from './otlp-schema.js';
import { MAX_LINKS } from '../profiles/index.js';

const TRACE = 'ab'.repeat(16);
const link = (i: number) => ({
  traceId: 'cd'.repeat(16),
  spanId: i.toString(16).padStart(16, '0'),
});
const request = {
  resourceSpans: [
    {
      resource: { attributes: [{ key: 'service.name', value: { stringValue: 'billing' } }] },
      scopeSpans: [
        {
          scope: { name: 'RabbitMQ.Client.Subscriber', version: '7.2.2' },
          spans: [
            {
              traceId: TRACE,
              spanId: '0000000000000001',
              name: 'deliver order.created',
              kind: 5,
              startTimeUnixNano: '1700000000000000000',
              endTimeUnixNano: '1700000000001000000',
              links: Array.from({ length: MAX_LINKS + 2 }, (_, i) => link(i + 1)),
              traceState: 'ot=th:c',
            },
          ],
        },
        { spans: [{ traceId: TRACE, spanId: '0000000000000002', name: 'no scope', kind: 1 }] },
      ],
    },
  ],
};

const FIRST = Array.from({ length: MAX_LINKS }, (_, i) => i + 1);

test('JSON: each span gets its scope, its trace state and its first MAX_LINKS links', () => {
  const [span, bare] = decodeJson(Buffer.from(JSON.stringify(request)));
  assert.deepEqual(span!.scope, { name: 'RabbitMQ.Client.Subscriber', version: '7.2.2' });
  assert.deepEqual(span!.links, FIRST.map(link));
  assert.equal(span!.traceState, 'ot=th:c');
  assert.deepEqual(bare!.scope, { name: '', version: '' });
  assert.deepEqual(bare!.links, []);
  assert.equal(bare!.traceState, '');
});

test('protobuf: the same', () => {
  const hex = (h: string) => Buffer.from(h, 'hex');
  const pb = structuredClone(request) as unknown as {
    resourceSpans: { scopeSpans: { spans: Record<string, unknown>[] }[] }[];
  };
  for (const ss of pb.resourceSpans[0]!.scopeSpans)
    for (const s of ss.spans) {
      s.traceId = hex(s.traceId as string);
      s.spanId = hex(s.spanId as string);
      s.links = ((s.links as { traceId: string; spanId: string }[] | undefined) ?? []).map((l) => ({
        traceId: hex(l.traceId),
        spanId: hex(l.spanId),
      }));
    }
  const body = Buffer.from(
    ExportTraceServiceRequest.encode(ExportTraceServiceRequest.fromObject(pb)).finish(),
  );
  const [span, bare] = decodeProtobuf(body);
  assert.deepEqual(span!.scope, { name: 'RabbitMQ.Client.Subscriber', version: '7.2.2' });
  assert.deepEqual(span!.links, FIRST.map(link));
  assert.equal(span!.traceState, 'ot=th:c');
  assert.deepEqual(bare!.scope, { name: '', version: '' });
});

test('a scope name is cut before anything reads it; links that are not an array are a 400', () => {
  const long = structuredClone(request);
  long.resourceSpans[0]!.scopeSpans[0]!.scope!.name = 'x'.repeat(100_000);
  assert.ok(decodeJson(Buffer.from(JSON.stringify(long)))[0]!.scope.name.length <= 129);
  const bad = structuredClone(request) as unknown as {
    resourceSpans: { scopeSpans: { spans: Record<string, unknown>[] }[] }[];
  };
  bad.resourceSpans[0]!.scopeSpans[0]!.spans[0]!.links = 'x';
  assert.throws(() => decodeJson(Buffer.from(JSON.stringify(bad))), /links must be an array/);
});

test('protobuf: attribute values equal to their default (false, 0, "", 0.0) are kept', () => {
  const value = (v: Record<string, unknown>) => v;
  const body = Buffer.from(
    ExportTraceServiceRequest.encode(
      ExportTraceServiceRequest.fromObject({
        resourceSpans: [
          {
            scopeSpans: [
              {
                spans: [
                  {
                    traceId: Buffer.from(TRACE, 'hex'),
                    spanId: Buffer.from('0000000000000001', 'hex'),
                    name: 'x',
                    attributes: [
                      { key: 'acktrail.delivery.redelivered', value: value({ boolValue: false }) },
                      { key: 'acktrail.delivery.attempt', value: value({ intValue: 0 }) },
                      { key: 'acktrail.result', value: value({ stringValue: '' }) },
                      { key: 'ratio', value: value({ doubleValue: 0 }) },
                    ],
                  },
                ],
              },
            ],
          },
        ],
      }),
    ).finish(),
  );
  const [span] = decodeProtobuf(body);
  assert.deepEqual(
    [...span!.attributes],
    [
      ['acktrail.delivery.redelivered', false],
      ['acktrail.delivery.attempt', 0],
      ['acktrail.result', ''],
      ['ratio', 0],
    ],
  );
});
