// The built dashboard served on a free port by its standalone server (what the image runs), for
// the browser tests, the Celery test and the page benchmark, and the Chromium they drive. Build it
// first (`npm run build -w dashboard`; `npm test` does).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  type Page,
} from 'playwright-core';
import AxeBuilder from '@axe-core/playwright';
import { REPO_ROOT, freePort } from '@acktrail/testing';

export { launchChromium } from '@acktrail/testing';

/**
 * axe-core's rules (WCAG 2.x A and AA, best practices) on the page as it is now: no serious or
 * critical violation, each one named with where it is.
 */
export async function assertAccessible(page: Page, what: string): Promise<void> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  const grave = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(
    grave.map(
      (v) =>
        `${v.id} (${v.impact}): ${v.help}; ${v.nodes
          .slice(0, 3)
          .map((n) => n.target.join(' '))
          .join(', ')}`,
    ),
    [],
    `${what}: axe finds no serious or critical violation`,
  );
}

/** Next's standalone output, with the static files the build script copies beside it. */
export const STANDALONE_SERVER = join(REPO_ROOT, 'dashboard/.next/standalone/dashboard/server.js');

/**
 * The id of a Server Action, as an attacker reads it from the built app: what a forged form post
 * names (field `$ACTION_ID_<id>`) to call the action without its page.
 */
export function serverActionId(exportedName: string): string {
  const manifest = JSON.parse(
    readFileSync(
      join(dirname(STANDALONE_SERVER), '.next/server/server-reference-manifest.json'),
      'utf8',
    ),
  ) as { node: Record<string, { exportedName: string }> };
  const id = Object.entries(manifest.node).find(([, a]) => a.exportedName === exportedName)?.[0];
  if (!id) throw new Error(`no Server Action ${exportedName} in the build`);
  return id;
}

export interface DashboardServer {
  url: string;
  /** What the server printed (stdout and stderr). */
  output: string[];
  close(): Promise<void>;
}

export class DashboardExited extends Error {
  constructor(
    readonly code: number | null,
    readonly output: string[],
  ) {
    super(`the dashboard server exited with ${String(code)}: ${output.slice(-3).join(' | ')}`);
  }
}

/**
 * `env`: the dashboard's environment (ACKTRAIL_API_URL, ACKTRAIL_API_TOKEN, PROMETHEUS_URL,
 * DASHBOARD_SECRET or DASHBOARD_AUTH…). Rejects with DashboardExited when the server stops
 * before it answers (a setting it refuses).
 */
export async function startDashboard(env: Record<string, string>): Promise<DashboardServer> {
  const port = await freePort();
  const next = spawn(process.execPath, [STANDALONE_SERVER], {
    env: {
      PATH: process.env.PATH ?? '',
      NEXT_TELEMETRY_DISABLED: '1',
      PORT: String(port),
      HOSTNAME: '127.0.0.1',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  for (const stream of [next.stdout, next.stderr])
    createInterface({ input: stream }).on('line', (l) => output.push(l));
  const exited = once(next, 'exit');
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (next.exitCode !== null) {
      await exited;
      throw new DashboardExited(next.exitCode, output);
    }
    const res = await fetch(`${url}/icon.svg`).catch(() => null);
    if (res?.status === 200) break;
    if (Date.now() > deadline) throw new Error('the dashboard did not answer within 30 s');
    await sleep(100);
  }
  return {
    url,
    output,
    close: async () => {
      if (next.exitCode !== null) return;
      next.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * A reverse proxy of ours in front of the dashboard, as oauth2-proxy is: it names its user in
 * X-Forwarded-User (and groups in X-Forwarded-Groups), drops whatever identity headers the client
 * sent, appends the client to X-Forwarded-For, and connects to the dashboard from `localAddress`
 * (127.0.0.2 by default: an address of its own, which DASHBOARD_TRUSTED_PROXY can name while a
 * client on 127.0.0.1 stays untrusted).
 */
export async function startIdentityProxy(
  target: string,
  who: () => { user: string; groups?: string[] } | null,
  localAddress = '127.0.0.2',
): Promise<{ url: string; close(): Promise<void> }> {
  const upstream = new URL(target);
  const server = createServer((req, res) => {
    const {
      'x-forwarded-user': _u,
      'x-forwarded-email': _e,
      'x-forwarded-groups': _g,
      ...headers
    } = req.headers;
    const identity = who();
    if (identity) {
      headers['x-forwarded-user'] = identity.user;
      if (identity.groups) headers['x-forwarded-groups'] = identity.groups.join(',');
    }
    const client = req.socket.remoteAddress ?? '';
    headers['x-forwarded-for'] = [req.headers['x-forwarded-for'], client]
      .filter(Boolean)
      .join(', ');
    const out = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        path: req.url,
        method: req.method,
        headers,
        localAddress,
      },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    out.on('error', () => res.writeHead(502).end());
    req.pipe(out);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      }),
  };
}

/**
 * A browser context signed in to `dashboardUrl` with `secret` (the sign-in form's POST, its
 * redirect followed), for tests that need the pages behind it.
 */
export async function signedInContext(
  browser: Browser,
  dashboardUrl: string,
  secret: string,
  options: BrowserContextOptions = {},
): Promise<BrowserContext> {
  const context = await browser.newContext(options);
  const res = await context.request.post(`${dashboardUrl}/signin/submit`, {
    form: { secret, next: '/' },
  });
  if (res.status() !== 200) throw new Error(`sign-in answered ${res.status()}`);
  return context;
}
