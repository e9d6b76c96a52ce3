// The Content-Security-Policy of every page. Set per request (proxy.ts), not at build time, so
// that the frame rule follows GRAFANA_URL as the server is started.
export function contentSecurityPolicy(grafanaUrl: string | null): string {
  return [
    "default-src 'self'",
    // Next inlines its bootstrap scripts and styles.
    "script-src 'self' 'unsafe-inline'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "connect-src 'self'",
    // Grafana's panels, and nothing else, may be framed in our pages...
    `frame-src ${grafanaUrl ? new URL(grafanaUrl).origin : "'none'"}`,
    // ...and our pages may not be framed by anyone.
    "frame-ancestors 'none'",
    "base-uri 'self'",
    "form-action 'self'",
  ].join('; ');
}
