// The Content-Security-Policy of every page. Set per request (proxy.ts): scripts run only with
// this request's nonce (Next.js puts it on its own script tags) or when loaded by such a script
// ('strict-dynamic'), never inline from anywhere else; the frame rule follows GRAFANA_URL as the
// server is started.
export function contentSecurityPolicy(
  grafanaUrl: string | null,
  nonce: string,
  dev = false,
): string {
  return [
    "default-src 'self'",
    // React's development build evaluates code; the production build never does.
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${dev ? " 'unsafe-eval'" : ''}`,
    // Charts set inline style attributes; styles cannot run code.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    // Grafana's panels, and nothing else, may be framed in our pages...
    `frame-src ${grafanaUrl ? new URL(grafanaUrl).origin : "'none'"}`,
    // ...and our pages may not be framed by anyone.
    "frame-ancestors 'none'",
    "base-uri 'self'",
    "form-action 'self'",
  ].join('; ');
}
