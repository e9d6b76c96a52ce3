import { join } from 'node:path';
import type { NextConfig } from 'next';

// The Content-Security-Policy is set per request by proxy.ts (it follows GRAFANA_URL).

const config: NextConfig = {
  // A self-contained server (.next/standalone) with only the files it uses: the image ships that.
  output: 'standalone',
  outputFileTracingRoot: join(import.meta.dirname, '..'),
  poweredByHeader: false,
  // forbidden() (app/forbidden.tsx): a dead-letter action by a viewer is answered 403.
  experimental: { authInterrupts: true },
  headers() {
    return Promise.resolve([
      {
        source: '/:path*',
        headers: [
          { key: 'X-Content-Type-Options', value: 'nosniff' },
          { key: 'Referrer-Policy', value: 'same-origin' },
        ],
      },
    ]);
  },
};

export default config;
