// OTLP/gRPC against a real journey store: the stock @opentelemetry/exporter-trace-otlp-grpc
// stores the same steps as the OTLP/HTTP exporter; a raw gRPC client forges what an SDK would not
// send (no token, a wrong one, garbage, too much) and reads the status codes an SDK acts on.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { connect, type ClientHttp2Session } from 'node:http2';
import { createConnection } from 'node:net';
import { after, before, test } from 'node:test';
import { Client, Metadata, credentials, status, type ServiceError } from '@grpc/grpc-js';
import { CompressionAlgorithm } from '@opentelemetry/otlp-exporter-base';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { waitFor } from '@acktrail/testing';
import { TestExporter } from '../../testing/exporter.js';
import { countSteps, exportSpans, journeySpans, makeSpans } from '../../testing/otlp.js';
import { ExportTraceServiceRequest, ExportTraceServiceResponse } from '../journeys/spans/index.js';
import { SIGN_IN_MS } from './grpc-sessions.js';

const TOKEN = 'grpc-ingest-token-0123456789';
const MAX_BODY = 64 * 1024;
const PATH = '/opentelemetry.proto.collector.trace.v1.TraceService/Export';

let exporter: Awaited<ReturnType<typeof TestExporter.withStore>>;
let address: string;
let client: Client;

before(async () => {
  exporter = await TestExporter.withStore(
    { ACKTRAIL_OTLP_GRPC_PORT: '0', ACKTRAIL_INGEST_TOKEN: TOKEN },
    {
      journeys: { maxBodyBytes: MAX_BODY, maxInflightBytes: 2 * MAX_BODY, maxSpansPerRequest: 50 },
    },
  );
  address = `127.0.0.1:${exporter.ports.otlpGrpc}`;
  client = new Client(address, credentials.createInsecure());
});
after(async () => {
  client.close();
  await exporter.close();
});

async function exportGrpc(spans: ReadableSpan[], token = TOKEN) {
  const metadata = new Metadata();
  metadata.set('authorization', `Bearer ${token}`);
  const sdk = new OTLPTraceExporter({ url: `http://${address}`, metadata });
  const result = await new Promise<{ code: number; error?: Error }>((resolve) => {
    sdk.export(spans, resolve);
  });
  await sdk.shutdown();
  return result;
}

/** One Export call with raw bytes; resolves with the status code (0: OK) and the answer. */
function call(body: Buffer, token: string | null = TOKEN) {
  const metadata = new Metadata();
  if (token !== null) metadata.set('authorization', `Bearer ${token}`);
  return new Promise<{ code: number; details: string; answer: Buffer | null }>((resolve) => {
    client.makeUnaryRequest(
      PATH,
      (b: Buffer) => b,
      (b: Buffer) => b,
      body,
      metadata,
      (err: ServiceError | null, answer?: Buffer) => {
        resolve({
          code: err?.code ?? status.OK,
          details: err?.details ?? '',
          answer: answer ?? null,
        });
      },
    );
  });
}

/**
 * An ExportTraceServiceRequest of `count` deliver spans (`bad` of them with a 3-byte span id),
 * each with a `pad` attribute of `padBytes` bytes.
 */
function protobuf(eventId: string, count = 1, bad = 0, padBytes = 0): Buffer {
  const nanos = BigInt(Date.now()) * 1_000_000n;
  const spans = Array.from({ length: count }, (_, i) => ({
    traceId: Buffer.from('7'.padStart(32, '0'), 'hex'),
    spanId: Buffer.from((i + 1).toString(16).padStart(i < bad ? 6 : 16, '0'), 'hex'),
    name: 'deliver',
    kind: 5,
    startTimeUnixNano: String(nanos),
    endTimeUnixNano: String(nanos + 1_000_000n),
    attributes: [
      { key: 'acktrail.event_id', value: { stringValue: `${eventId}-${i}` } },
      { key: 'acktrail.stage', value: { stringValue: 'deliver' } },
      ...(padBytes > 0 ? [{ key: 'pad', value: { stringValue: 'p'.repeat(padBytes) } }] : []),
    ],
  }));
  const request = ExportTraceServiceRequest.fromObject({
    resourceSpans: [{ scopeSpans: [{ spans }] }],
  });
  return Buffer.from(ExportTraceServiceRequest.encode(request).finish());
}

test('the stock gRPC exporter stores the same steps as OTLP/HTTP, once however often it retries', async () => {
  const overGrpc = journeySpans('ev-grpc');
  assert.equal((await exportGrpc(overGrpc)).code, 0);
  assert.equal(
    (await exportSpans(exporter.url, journeySpans('ev-http'), 'protobuf', TOKEN)).code,
    0,
  );
  const steps = async (eventId: string) => {
    const r = await countSteps(exporter.storeUrl, 'event_id = $1', [eventId]);
    const stages = await countSteps(
      exporter.storeUrl,
      `event_id = $1 AND stage = 'settle' AND attrs->>'acktrail.settle.outcome' = 'ack'`,
      [eventId],
    );
    return { r, stages };
  };
  assert.deepEqual(await steps('ev-grpc'), await steps('ev-http'));
  assert.deepEqual(await steps('ev-grpc'), { r: 4, stages: 1 });
  assert.equal((await exportGrpc(overGrpc)).code, 0, 'a retry succeeds');
  assert.equal(
    await countSteps(exporter.storeUrl, 'event_id = $1', ['ev-grpc']),
    4,
    'and adds nothing',
  );
});

test('without the token, or with a forged one: UNAUTHENTICATED, nothing stored', async () => {
  const before = (await exporter.scrape()).value('acktrail_ingest_refused_total', {
    reason: 'unauthorized',
  });
  assert.equal((await call(protobuf('ev-no-token'), null)).code, status.UNAUTHENTICATED);
  assert.equal((await call(protobuf('ev-forged'), `${TOKEN}x`)).code, status.UNAUTHENTICATED);
  assert.equal(
    (await call(protobuf('ev-forged'), 'Basic Zm9vOmJhcg==')).code,
    status.UNAUTHENTICATED,
  );
  assert.notEqual((await exportGrpc(makeSpans([]), 'wrong')).code, 0);
  assert.equal(
    await countSteps(
      exporter.storeUrl,
      "event_id LIKE 'ev-no-token%' OR event_id LIKE 'ev-forged%'",
    ),
    0,
  );
  const after = (await exporter.scrape()).value('acktrail_ingest_refused_total', {
    reason: 'unauthorized',
  });
  assert.equal(after! - before!, 4);
});

test('a body that is not OTLP: INVALID_ARGUMENT, which an SDK does not retry', async () => {
  const r = await call(Buffer.from([0xff, 0xff, 0xff]));
  assert.equal(r.code, status.INVALID_ARGUMENT);
  assert.match(r.details, /./);
});

test('beyond the body or the span limit: RESOURCE_EXHAUSTED; a partly bad batch: partialSuccess', async () => {
  const big = Buffer.alloc(MAX_BODY + 1, 0);
  assert.equal((await call(big)).code, status.RESOURCE_EXHAUSTED);
  const many = await call(protobuf('ev-many', 51));
  assert.equal(many.code, status.RESOURCE_EXHAUSTED);
  assert.match(many.details, /50/);
  assert.equal(await countSteps(exporter.storeUrl, "event_id LIKE 'ev-many-%'"), 0);

  const partly = await call(protobuf('ev-grpc-batch', 3, 1));
  assert.equal(partly.code, status.OK);
  const answer = ExportTraceServiceResponse.toObject(
    ExportTraceServiceResponse.decode(partly.answer!),
  ) as { partialSuccess: { rejectedSpans: number; errorMessage: string } };
  assert.equal(answer.partialSuccess.rejectedSpans, 1);
  assert.match(answer.partialSuccess.errorMessage, /spanId must be 8 bytes/);
  assert.equal(await countSteps(exporter.storeUrl, "event_id LIKE 'ev-grpc-batch-%'"), 2);
});

test('the in-flight budget is shared with OTLP/HTTP: held by uploads, gRPC gets UNAVAILABLE', async () => {
  // Two HTTP uploads that each send all but 4 KiB of the largest body, then wait: together they
  // hold all but 8 KiB of the budget (2 x MAX_BODY), less what their pieces cost beyond their
  // bytes (pieces.ts). A gRPC message of 16 KiB cannot fit in what is left.
  const sent = MAX_BODY - 4096;
  const uploads = [0, 1].map(() => {
    const upload = request(`${exporter.url}/v1/traces`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'content-length': String(sent + 1),
        authorization: `Bearer ${TOKEN}`,
      },
    });
    upload.on('error', () => undefined);
    upload.write(Buffer.alloc(sent, ' '));
    return upload;
  });
  try {
    await waitFor('the uploads holding the budget', async () => {
      const held = (await exporter.scrape()).value('acktrail_ingest_inflight_bytes') ?? 0;
      return held >= 2 * sent;
    });
    const refused = await call(protobuf('ev-over-budget', 3, 0, 16 * 1024));
    assert.equal(refused.code, status.UNAVAILABLE, 'the status an SDK retries');
    assert.match(refused.details, /in-flight budget/);
  } finally {
    for (const u of uploads) u.destroy();
  }
  await waitFor('the budget given back', async () => {
    return (await exporter.scrape()).value('acktrail_ingest_inflight_bytes') === 0;
  });
  assert.equal((await call(protobuf('ev-after-budget', 3))).code, status.OK);
  assert.equal(await countSteps(exporter.storeUrl, "event_id LIKE 'ev-over-budget-%'"), 0);
});

/**
 * A raw HTTP/2 call that declares a message of `declared` bytes and sends `sent` bytes of it,
 * never ending its side: what a hostile client holds open. Resolves the status once the server
 * answers (the stream's response headers or trailers), however much was sent.
 */
function hold(session: ClientHttp2Session, declared: number, sent: number, token: string | null) {
  const stream = session.request({
    ':method': 'POST',
    ':path': PATH,
    'content-type': 'application/grpc',
    te: 'trailers',
    ...(token === null ? {} : { authorization: `Bearer ${token}` }),
  });
  stream.on('error', () => undefined);
  const prefix = Buffer.alloc(5);
  prefix.writeUInt32BE(declared, 1);
  stream.write(Buffer.concat([prefix, Buffer.alloc(sent, 1)]));
  const status = new Promise<number>((resolve) => {
    const read = (headers: Record<string, unknown>) => {
      if (headers['grpc-status'] !== undefined) resolve(Number(headers['grpc-status']));
    };
    stream.on('response', read);
    stream.on('trailers', read);
  });
  return { stream, status };
}

test('a call without the token is refused on its headers, before its message is read', async () => {
  const session = connect(`http://${address}`);
  session.on('error', () => undefined);
  try {
    // Every stream declares the largest message and sends all of it but one byte, never ending.
    const calls = Array.from({ length: 8 }, () => hold(session, MAX_BODY, MAX_BODY - 1, null));
    const codes = await Promise.all(calls.map((c) => c.status));
    assert.deepEqual(new Set(codes), new Set([status.UNAUTHENTICATED]));
    assert.equal((await exporter.scrape()).value('acktrail_ingest_inflight_bytes'), 0);
  } finally {
    session.destroy();
  }
});

test('held calls with the token: charged as their bytes arrive, the rest refused at once, all freed when idle', async () => {
  const session = connect(`http://${address}`);
  session.on('error', () => undefined);
  try {
    // Two calls fill the budget (2 x MAX_BODY) but for 8 KiB (each sends its 5-byte prefix and
    // all but 4 KiB of its message), and a little less for what their frames cost beyond their
    // bytes (pieces.ts); a third cannot fit.
    const sent = MAX_BODY - 4096;
    const held = [0, 1].map(() => hold(session, MAX_BODY, sent, TOKEN));
    await waitFor('the held calls charged to the budget', async () => {
      const inUse = (await exporter.scrape()).value('acktrail_ingest_inflight_bytes') ?? 0;
      return inUse >= 2 * (sent + 5);
    });
    const third = hold(session, MAX_BODY, MAX_BODY - 1, TOKEN);
    assert.equal(await third.status, status.UNAVAILABLE, 'refused while the others still hold');
    // Sending nothing more, the held calls are ended by the idle bound and their bytes freed.
    const codes = await Promise.all(held.map((c) => c.status));
    assert.deepEqual(codes, [status.DEADLINE_EXCEEDED, status.DEADLINE_EXCEEDED]);
    await waitFor('the budget given back', async () => {
      return (await exporter.scrape()).value('acktrail_ingest_inflight_bytes') === 0;
    });
  } finally {
    session.destroy();
  }
  assert.equal((await call(protobuf('ev-after-hold', 2))).code, status.OK);
});

test('a message declared over the limit is refused on its prefix; a gzip one is inflated within it', async () => {
  const session = connect(`http://${address}`);
  session.on('error', () => undefined);
  try {
    const over = hold(session, MAX_BODY + 1, 10, TOKEN);
    assert.equal(await over.status, status.RESOURCE_EXHAUSTED);
  } finally {
    session.destroy();
  }
  const metadata = new Metadata();
  metadata.set('authorization', `Bearer ${TOKEN}`);
  const sdk = new OTLPTraceExporter({
    url: `http://${address}`,
    metadata,
    compression: CompressionAlgorithm.GZIP,
  });
  const result = await new Promise<{ code: number }>((resolve) => {
    sdk.export(journeySpans('ev-grpc-gzip'), resolve);
  });
  await sdk.shutdown();
  assert.equal(result.code, 0);
  assert.equal(await countSteps(exporter.storeUrl, 'event_id = $1', ['ev-grpc-gzip']), 4);
});

test('70 connections from one address that never sign in hold no slot: calls from another address succeed', async () => {
  // An attacker on 127.0.0.2: the preface, SETTINGS, and a call to an unknown path every second
  // on each connection (which used to keep every one open, and all 64 slots taken).
  const held = Array.from({ length: 70 }, () => {
    // http2's options have no localAddress; the socket is made here to bind one.
    const session = connect(`http://${address}`, {
      createConnection: () =>
        createConnection({
          host: '127.0.0.1',
          port: Number(exporter.ports.otlpGrpc),
          localAddress: '127.0.0.2',
        }),
    });
    session.on('error', () => undefined);
    return session;
  });
  const poke = () => {
    for (const s of held) {
      if (s.closed || s.destroyed) continue;
      const r = s.request({
        ':method': 'POST',
        ':path': '/x.Y/Z',
        'content-type': 'application/grpc',
      });
      r.on('error', () => undefined);
      r.resume();
      r.end();
    }
  };
  poke();
  const timer = setInterval(poke, 1000);
  const fresh = new Client(address, credentials.createInsecure());
  try {
    for (let i = 0; i < 5; i++) {
      const metadata = new Metadata();
      metadata.set('authorization', `Bearer ${TOKEN}`);
      const code = await new Promise<number>((resolve) => {
        fresh.makeUnaryRequest(
          PATH,
          (b: Buffer) => b,
          (b: Buffer) => b,
          protobuf(`ev-beside-held-${i}`),
          metadata,
          { deadline: Date.now() + 20_000 },
          (err: ServiceError | null) => {
            resolve(err?.code ?? status.OK);
          },
        );
      });
      assert.equal(code, status.OK, `call ${i} from 127.0.0.1`);
    }
    // However often they call, connections that never open an admitted call are closed.
    await waitFor('every connection that never signed in closed', () =>
      held.every((s) => s.closed || s.destroyed),
    );
  } finally {
    clearInterval(timer);
    fresh.close();
    for (const s of held) s.destroy();
  }
});

test("idle connections without a token from a sender's own address never lock the sender out", async () => {
  // Sixteen idle connections from 127.0.0.1 (a node agent, SNAT), opened again as soon as one
  // closes; each signed-in sender on the same address opens a connection of its own beside them.
  let holding = true;
  const held = new Set<ClientHttp2Session>();
  const hold = () => {
    if (!holding) return;
    const session = connect(`http://${address}`);
    session.on('error', () => undefined);
    session.once('close', () => {
      held.delete(session);
      hold();
    });
    held.add(session);
  };
  for (let i = 0; i < 16; i++) hold();
  await waitFor('16 connections held', () => [...held].filter((s) => !s.connecting).length >= 16);
  try {
    const codes: number[] = [];
    for (let i = 0; i < 12; i++) {
      const sender = new Client(address, credentials.createInsecure());
      const metadata = new Metadata();
      metadata.set('authorization', `Bearer ${TOKEN}`);
      codes.push(
        await new Promise<number>((resolve) => {
          sender.makeUnaryRequest(
            PATH,
            (b: Buffer) => b,
            (b: Buffer) => b,
            protobuf(`ev-shared-address-${i}`),
            metadata,
            // Under the sign-in bound: a call that had to wait for an idle one to be closed fails.
            { deadline: Date.now() + SIGN_IN_MS / 2 },
            (err: ServiceError | null) => {
              resolve(err?.code ?? status.OK);
            },
          );
        }),
      );
      sender.close();
    }
    assert.deepEqual(
      codes,
      Array.from({ length: 12 }, () => status.OK),
    );
  } finally {
    holding = false;
    for (const s of held) s.destroy();
  }
});

test('without the token nothing else is answered: an unknown method is UNAUTHENTICATED, not UNIMPLEMENTED', async () => {
  const session = connect(`http://${address}`);
  session.on('error', () => undefined);
  const statusOf = (token: string | null) =>
    new Promise<string>((resolve) => {
      const r = session.request({
        ':method': 'POST',
        ':path': '/x.Y/Z',
        'content-type': 'application/grpc',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      });
      r.on('error', () => undefined);
      r.on('response', (h) => {
        if (h['grpc-status'] !== undefined) resolve(String(h['grpc-status']));
      });
      r.resume();
      r.end();
    });
  try {
    assert.equal(await statusOf(null), String(status.UNAUTHENTICATED));
    assert.equal(await statusOf('forged-token'), String(status.UNAUTHENTICATED));
    assert.equal(await statusOf(TOKEN), String(status.UNIMPLEMENTED));
  } finally {
    session.destroy();
  }
});
