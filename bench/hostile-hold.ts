// The hostile bench's holds (hostile.ts), each against an exporter process of its own, started
// as the image starts one and configured as the Kubernetes manifest configures one: OTLP/HTTP and
// gRPC on their own ports (the ingest thread), with an ingest token.
//   grpc      6 HTTP/2 connections of 16 Export calls each, every call declaring a message of
//             8 MiB less 16 bytes and sending all of it but one byte, then waiting; once without
//             the token, once with it, held past journeys.bodyTimeoutSeconds;
//   drip      4 OTLP/HTTP uploads (the whole 32 MiB budget) that send all of 8 MiB but 64 bytes,
//             then one byte a second, under the body idle bound;
//   tiny      4 connections each sending 1,000,000 one-byte chunks of OTLP/HTTP chunked bodies,
//             then 4 sending 1,500,000 one-byte DATA frames of Export calls (a new request or call
//             after each refusal), as an attacker holding the token would (testing/tiny-pieces.ts);
// printed: the exporter's RSS before and at its peak (VmHWM), every call's or request's answer
// (a gRPC status, an HTTP status, or none), and when the drips' budget was given back.
import { connect, type ClientHttp2Session } from 'node:http2';
import { request } from 'node:http';
import { startExporterProcess } from '@acktrail/exporter/testing';
import { dripChunked, dripGrpc, type Dripped } from '@acktrail/exporter/testing/tiny-pieces';
import { target } from './figures.js';
import { fmt, procMemoryMb } from './lib.js';

const MB = 1024 * 1024;
const TOKEN = 'bench-hold-ingest-token-0123456789';
const EXPORT_PATH = '/opentelemetry.proto.collector.trace.v1.TraceService/Export';
/** Past journeys.bodyTimeoutSeconds (30): the calls the budget took get their deadline too. */
const HOLD_SECONDS = Number(process.env.BENCH_HOLD_SECONDS ?? 35);
const log = (line: string) => process.stderr.write(`${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One Export call that sends all of its declared message but a byte; resolves with its status. */
function heldCall(session: ClientHttp2Session, token: string | null): Promise<string> {
  const declared = 8 * MB - 16;
  const stream = session.request({
    ':method': 'POST',
    ':path': EXPORT_PATH,
    'content-type': 'application/grpc',
    te: 'trailers',
    ...(token ? { authorization: `Bearer ${token}` } : {}),
  });
  return new Promise((resolve) => {
    let status: string | null = null;
    stream.on('response', (headers) => {
      const s = headers['grpc-status'];
      if (s !== undefined) status = String(s);
    });
    stream.on('trailers', (headers: Record<string, unknown>) => {
      status ??= String(headers['grpc-status']);
    });
    stream.on('error', () => undefined);
    stream.on('close', () => {
      resolve(status === null ? 'none' : `grpc-status ${status}`);
    });
    const prefix = Buffer.alloc(5);
    prefix.writeUInt32BE(declared, 1);
    stream.write(prefix);
    // As a client library sends: 64 KiB at a time, waiting for 'drain' (written at once, Node's
    // client drops the answer a reset stream got).
    void (async () => {
      const chunk = Buffer.alloc(64 * 1024, 1);
      for (let left = declared - 1; left > 0 && !stream.destroyed; left -= chunk.length) {
        if (!stream.write(left >= chunk.length ? chunk : chunk.subarray(0, left)))
          await new Promise<void>((resolve) => {
            const go = () => {
              stream.off('drain', go);
              stream.off('close', go);
              resolve();
            };
            stream.on('drain', go);
            stream.on('close', go);
          });
      }
    })();
  });
}

async function grpcHold(store: string, withToken: boolean): Promise<void> {
  const { proc, url } = await startExporterProcess(
    {
      ACKTRAIL_DATABASE_URL: store,
      ACKTRAIL_INGEST_PORT: '0',
      ACKTRAIL_OTLP_GRPC_PORT: '0',
      ACKTRAIL_INGEST_TOKEN: TOKEN,
    },
    { rabbitmq: { enabled: false } },
  );
  try {
    const ready = proc.lines.find((l) => l.msg === 'ready')!;
    const before = procMemoryMb(proc.pid, 'VmRSS');
    const sessions = Array.from({ length: 6 }, () =>
      connect(`http://127.0.0.1:${String(ready.otlpGrpc)}`),
    );
    for (const s of sessions) s.on('error', () => undefined);
    const calls = sessions.flatMap((s) =>
      Array.from({ length: 16 }, () => heldCall(s, withToken ? TOKEN : null)),
    );
    const rss: number[] = [];
    const until = Date.now() + HOLD_SECONDS * 1000;
    while (Date.now() < until) {
      rss.push(procMemoryMb(proc.pid, 'VmRSS'));
      await sleep(200);
    }
    for (const s of sessions) s.destroy();
    const answers = new Map<string, number>();
    for (const a of await Promise.all(calls)) answers.set(a, (answers.get(a) ?? 0) + 1);
    const peak = procMemoryMb(proc.pid, 'VmHWM');
    const what = withToken ? 'with the token' : 'without a token';
    const answered = [...answers].filter(([k]) => k !== 'none').reduce((n, [, v]) => n + v, 0);
    log(
      `  gRPC hold ${what}: RSS ${fmt(before)} MB before, ${fmt(Math.max(...rss))} MB at most while held, peak (VmHWM) ${fmt(peak)} MB; answers ${JSON.stringify(Object.fromEntries(answers))} (${url})`,
    );
    target(`exporter peak RSS (VmHWM), gRPC hold ${what}`, peak, { atMost: 400 }, 'MB');
    target(
      `gRPC hold ${what}: calls answered with a status`,
      (100 * answered) / calls.length,
      {
        atLeast: 99,
      },
      '%',
    );
  } finally {
    await proc.stop();
  }
}

/** An upload that sends all of 8 MiB but 64 bytes; `drip` sends one more byte. */
function dripUpload(ingestUrl: string) {
  const req = request(`${ingestUrl}/v1/traces`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'content-length': String(8 * MB),
      authorization: `Bearer ${TOKEN}`,
    },
  });
  let closed = false;
  req.on('error', () => undefined);
  req.on('close', () => (closed = true));
  req.write(Buffer.alloc(8 * MB - 64, ' '));
  return {
    drip: () => {
      if (!closed) req.write(' ');
    },
    closed: () => closed,
  };
}

async function slowDrip(store: string): Promise<void> {
  const { proc, url, ingestUrl } = await startExporterProcess(
    { ACKTRAIL_DATABASE_URL: store, ACKTRAIL_INGEST_PORT: '0', ACKTRAIL_INGEST_TOKEN: TOKEN },
    { rabbitmq: { enabled: false } },
  );
  try {
    const before = procMemoryMb(proc.pid, 'VmRSS');
    const started = Date.now();
    const drips = Array.from({ length: 4 }, () => dripUpload(ingestUrl));
    const timer = setInterval(() => {
      for (const d of drips) d.drip();
    }, 1000);
    const inflight = async () =>
      Number(
        /^acktrail_ingest_inflight_bytes (\d+)/m.exec(
          await (await fetch(`${url}/metrics`)).text(),
        )?.[1] ?? 0,
      );
    let held = 0;
    while (Date.now() - started < 150_000) {
      const n = await inflight();
      held = Math.max(held, n);
      if (held > 0 && n === 0 && drips.every((d) => d.closed())) break;
      await sleep(500);
    }
    clearInterval(timer);
    const freedAfter = (Date.now() - started) / 1000;
    const refused = /acktrail_ingest_refused_total\{reason="slow_body"\} (\d+)/.exec(
      await (await fetch(`${url}/metrics`)).text(),
    )?.[1];
    const peak = procMemoryMb(proc.pid, 'VmHWM');
    log(
      `  slow drip: ${fmt(held / MB, 1)} MiB held at most, given back ${fmt(freedAfter)} s after the uploads began (journeys.bodyTimeoutSeconds 30), ${refused ?? 0} dropped as slow_body; RSS ${fmt(before)} MB before, peak (VmHWM) ${fmt(peak)} MB`,
    );
    target('exporter peak RSS (VmHWM), slow drip of 4 x 8 MiB', peak, { atMost: 400 }, 'MB');
  } finally {
    await proc.stop();
  }
}

/** `each` pieces over `drip` on 4 connections at once, a new request after each refusal. */
async function fourAtOnce(drip: (left: number) => Promise<Dripped>, each: number) {
  let requests = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      for (let left = each; left > 0; requests++) left -= Math.max(1, (await drip(left)).sent);
    }),
  );
  return requests;
}

async function tinyPieces(store: string): Promise<void> {
  const { proc, ingestUrl } = await startExporterProcess(
    {
      ACKTRAIL_DATABASE_URL: store,
      ACKTRAIL_INGEST_PORT: '0',
      ACKTRAIL_OTLP_GRPC_PORT: '0',
      ACKTRAIL_INGEST_TOKEN: TOKEN,
    },
    { rabbitmq: { enabled: false } },
  );
  try {
    const ready = proc.lines.find((l) => l.msg === 'ready')!;
    const before = procMemoryMb(proc.pid, 'VmRSS');
    const started = Date.now();
    const port = Number(new URL(ingestUrl).port);
    const chunked = await fourAtOnce((left) => dripChunked(port, left, TOKEN), 1_000_000);
    const grpc = await fourAtOnce(
      (left) => dripGrpc(Number(ready.otlpGrpc), left, TOKEN, 8 * MB - 16),
      1_500_000,
    );
    const peak = procMemoryMb(proc.pid, 'VmHWM');
    log(
      `  tiny pieces: 4 x 1,000,000 one-byte chunks written in ${chunked} requests, 4 x 1,500,000 one-byte DATA frames in ${grpc} calls (each refused by the exporter at its 65,536th piece), ${fmt((Date.now() - started) / 1000)} s; RSS ${fmt(before)} MB before, peak (VmHWM) ${fmt(peak)} MB (memory.budgetBytes 512 MiB)`,
    );
    target(
      'exporter peak RSS (VmHWM), one-byte chunks and DATA frames',
      peak,
      { atMost: 640 },
      'MB',
    );
  } finally {
    await proc.stop();
  }
}

export async function holds(store: string): Promise<void> {
  log(`hostile: holds (${HOLD_SECONDS} s of gRPC hold, then a slow drip, then tiny pieces)`);
  await grpcHold(store, false);
  await grpcHold(store, true);
  await slowDrip(store);
  await tinyPieces(store);
}
