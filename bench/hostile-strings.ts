// The hostile bench's second part (hostile.ts): POST /v1/traces of one span whose name and three
// attributes are 1 MB each against the same span with short strings, interleaved, in protobuf and
// JSON; ms per request from the send to the 200 (decoded and committed), median, as a ratio.
import { request } from 'node:http';
import { ExportTraceServiceRequest } from '@acktrail/exporter/testing/spans';
import { fmt, median, quantile } from './lib.js';

const MB = 1024 * 1024;
const STRING_REQUESTS = 40;
const log = (line: string) => process.stderr.write(`${line}\n`);
const nowNs = () => BigInt(Date.now()) * 1_000_000n;
const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');

function span(traceId: string, spanId: string, name: string, attrs: [string, string][]) {
  const t = nowNs();
  return {
    traceId,
    spanId,
    name,
    kind: 5,
    startTimeUnixNano: String(t),
    endTimeUnixNano: String(t + 1_000_000n),
    attributes: [['acktrail.stage', 'deliver'], ...attrs].map(([key, value]) => ({
      key,
      value: { stringValue: value },
    })),
  };
}
const body = (spans: unknown[]) => JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans }] }] });

interface SpanShape {
  traceId: string;
  name: string;
  value: string;
  eventId: string;
}

const spanOf = (traceId: string, name: string, value: string, eventId: string): SpanShape => ({
  traceId,
  name,
  value,
  eventId,
});

/** POSTs one span in the given encoding; resolves with the ms until the 200 arrived. */
async function postBody(url: string, encoding: 'json' | 'protobuf', s: SpanShape) {
  const attrs: [string, string][] = [
    ['acktrail.event_id', s.eventId],
    ['acktrail.queue', s.value],
    ['acktrail.dead_letter.reason', s.value],
    ['messaging.destination.name', s.value],
  ];
  let payload: Buffer;
  if (encoding === 'json') {
    payload = Buffer.from(body([span(s.traceId, '1'.padStart(16, '0'), s.name, attrs)]));
  } else {
    const t = Date.now() * 1e6;
    payload = Buffer.from(
      ExportTraceServiceRequest.encode(
        ExportTraceServiceRequest.fromObject({
          resourceSpans: [
            {
              scopeSpans: [
                {
                  spans: [
                    {
                      traceId: Buffer.from(s.traceId, 'hex'),
                      spanId: Buffer.from('1'.padStart(16, '0'), 'hex'),
                      name: s.name,
                      kind: 5,
                      startTimeUnixNano: t,
                      endTimeUnixNano: t + 1e6,
                      attributes: [['acktrail.stage', 'deliver'], ...attrs].map(([key, value]) => ({
                        key,
                        value: { stringValue: value },
                      })),
                    },
                  ],
                },
              ],
            },
          ],
        }),
      ).finish(),
    );
  }
  const type = encoding === 'json' ? 'application/json' : 'application/x-protobuf';
  const started = performance.now();
  // node:http rather than fetch: fetch's own handling of a 4 MB body costs about as much as the
  // exporter's (measured against curl), and it is the exporter that is measured here.
  const code = await new Promise<number>((resolve, reject) => {
    const req = request(`${url}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': type, 'content-length': String(payload.length) },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => {
        resolve(res.statusCode!);
      });
    });
    req.end(payload);
  });
  if (code !== 200) throw new Error(`a ${s.name.length}-character ${encoding} span: ${code}`);
  return performance.now() - started;
}

/** One span of 1 MB strings against one of short strings, interleaved, in both encodings. */
export async function stringBench(url: string): Promise<void> {
  const huge = `${'a'.repeat(MB)}@`;
  const times = new Map<string, number[]>();
  for (let n = 0; n < STRING_REQUESTS; n++) {
    for (const [size, value] of [
      ['1 MB', huge],
      ['short', 'orders.confirmations'],
    ] as const) {
      for (const encoding of ['protobuf', 'json'] as const) {
        const traceId = hex(10_000_000 + times.size * 1000 + n, 32);
        const s = spanOf(traceId, size === 'short' ? 'deliver' : value, value, `strings-${n}`);
        const res = await postBody(url, encoding, s);
        const key = `${size} ${encoding}`;
        times.set(key, [...(times.get(key) ?? []), res]);
      }
    }
  }
  const m = (k: string) => median(times.get(k)!);
  log(
    'hostile: one span with a 1 MB name and three 1 MB attributes against one with short strings',
  );
  for (const encoding of ['protobuf', 'json'])
    log(
      `  ${encoding.padEnd(8)} POST /v1/traces, decoded and committed: 1 MB strings median ${fmt(m(`1 MB ${encoding}`), 2)} ms (p99 ${fmt(quantile(times.get(`1 MB ${encoding}`)!, 0.99), 2)}), short ${fmt(m(`short ${encoding}`), 2)} ms; ratio ${fmt(m(`1 MB ${encoding}`) / m(`short ${encoding}`), 1)}`,
    );
}
