// The built dashboard served by `next start` on a free port, for the browser tests, the Celery
// test and the page benchmark. Build it first (`npm run build -w dashboard`; `npm test` does).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { REPO_ROOT, freePort, waitFor } from '@acktrail/orders-example/testing';

export interface DashboardServer {
  url: string;
  close(): Promise<void>;
}

/** `env`: the dashboard's environment (ACKTRAIL_API_URL, ACKTRAIL_API_TOKEN, PROMETHEUS_URL…). */
export async function startDashboard(env: Record<string, string>): Promise<DashboardServer> {
  const port = await freePort();
  const next = spawn(
    process.execPath,
    [
      join(REPO_ROOT, 'node_modules/next/dist/bin/next'),
      'start',
      '-p',
      String(port),
      '-H',
      '127.0.0.1',
    ],
    {
      cwd: join(REPO_ROOT, 'dashboard'),
      env: { PATH: process.env.PATH ?? '', NEXT_TELEMETRY_DISABLED: '1', ...env },
      stdio: 'ignore',
    },
  );
  const url = `http://127.0.0.1:${port}`;
  await waitFor(
    'the dashboard answering',
    async () => {
      if (next.exitCode !== null) throw new Error(`next start exited with ${next.exitCode}`);
      return (await fetch(url)).status < 500;
    },
    { timeoutMs: 30_000 },
  );
  return {
    url,
    close: async () => {
      if (next.exitCode !== null) return;
      next.kill('SIGTERM');
      await once(next, 'exit');
    },
  };
}
