// A flood of OTLP/JSON bodies against a receiver, in a process of its own so that whoever
// measures the receiver meanwhile is not slowed by the flood's own work:
//   node --import tsx exporter/src/testing/flood.ts <url> <seconds> <senders> [token] [expect]
// Each sender posts ~8 MB bodies of 1000 spans (with fetch, as SDKs on Node do; with `expect`,
// with node:http and `Expect: 100-continue`, sending the body only once told to); a body is sent again until it is answered 200
// (as an SDK retries), so only taken bodies are new. Prints one JSON line on stdout:
// {"answers": {status or error code: count}, "acked": [batch numbers answered 200]}; the spans
// of batch n have the trace id floodTraceId(n) and event ids flood-<trace id>-<index>.
import { spawn } from 'node:child_process';
import { Agent, request } from 'node:http';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { jsonBody } from './otlp.js';

export const FLOOD_SPANS = 1000;
const MARKER = 'TRACE'.padEnd(32, '_');

export const floodTraceId = (batch: number) => (1_000_000 + batch).toString(16).padStart(32, '0');

/** ~8 MB: each span carries ~8 kB in an attribute that is cut to 200 characters on store. */
const template = () =>
  jsonBody(MARKER, FLOOD_SPANS, `flood-${MARKER}`, [
    ['acktrail.queue', 'f'.repeat(8 * 1024 - 400)],
  ]);

export interface FloodResult {
  answers: Record<string, number>;
  acked: number[];
}

/** One POST that waits for 100 Continue before it sends its body; resolves with the status. */
function postExpecting(
  agent: Agent,
  url: string,
  headers: Record<string, string>,
  payload: Buffer,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'POST',
      agent,
      headers: { ...headers, 'content-length': String(payload.length), expect: '100-continue' },
    });
    let sent = false;
    req.on('continue', () => {
      sent = true;
      req.end(payload);
    });
    req.on('error', reject);
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => {
        // Refused before the body: the server closes the connection, nothing more to send.
        if (!sent) req.destroy();
        resolve(res.statusCode!);
      });
    });
    req.flushHeaders();
  });
}

async function flood(
  url: string,
  seconds: number,
  senders: number,
  token: string | null,
  expect: boolean,
) {
  const body = template();
  const until = Date.now() + seconds * 1000;
  const answers = new Map<string, number>();
  const acked: number[] = [];
  let next = 0;
  const headers = {
    'content-type': 'application/json',
    ...(token ? { authorization: `Bearer ${token}` } : {}),
  };
  const agent = new Agent({ keepAlive: true, maxSockets: senders });
  const post = async (payload: Buffer) => {
    if (expect) return postExpecting(agent, `${url}/v1/traces`, headers, payload);
    const res = await fetch(`${url}/v1/traces`, { method: 'POST', headers, body: payload });
    await res.arrayBuffer();
    return res.status;
  };
  const sender = async () => {
    let batch = next++;
    let payload = Buffer.from(body.replaceAll(MARKER, floodTraceId(batch)));
    while (Date.now() < until) {
      let answer: string;
      try {
        const status = await post(payload);
        answer = String(status);
        if (status === 200) {
          acked.push(batch);
          batch = next++;
          payload = Buffer.from(body.replaceAll(MARKER, floodTraceId(batch)));
        }
      } catch (err) {
        const e = err as { code?: string; cause?: { code?: string } };
        answer = e.cause?.code ?? e.code ?? 'error';
      }
      answers.set(answer, (answers.get(answer) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: senders }, sender));
  agent.destroy();
  return { answers: Object.fromEntries(answers), acked } satisfies FloodResult;
}

/**
 * Runs the flood in a child process; resolves with what it was answered. `nice` (1 to 19) runs
 * it at that lower CPU priority, as an attacker on another machine would be: on a small machine
 * the flood's own sending otherwise takes a core from the receiver it floods. `expect`: every
 * request asks `Expect: 100-continue` and sends its body only once told to.
 */
export function runFlood(
  url: string,
  seconds: number,
  senders: number,
  token: string | null = null,
  { nice = 0, expect = false } = {},
): Promise<FloodResult> {
  const niced = nice > 0 ? ['-n', String(nice), process.execPath] : [];
  const child = spawn(
    niced.length > 0 ? 'nice' : process.execPath,
    [
      ...niced,
      '--import',
      'tsx',
      fileURLToPath(import.meta.url),
      url,
      String(seconds),
      String(senders),
      token ?? '',
      expect ? 'expect' : '',
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return new Promise((resolve, reject) => {
    let result: FloodResult | null = null;
    createInterface({ input: child.stdout }).on('line', (line) => {
      result = JSON.parse(line) as FloodResult;
    });
    child.on('exit', (code) => {
      if (code === 0 && result) resolve(result);
      else reject(new Error(`the flood process exited with ${String(code)}`));
    });
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [url, seconds, senders, token, expect] = process.argv.slice(2);
  const result = await flood(
    url!,
    Number(seconds),
    Number(senders),
    token || null,
    expect === 'expect',
  );
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
