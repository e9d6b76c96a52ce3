// Grafana's panels beside the dashboard's own charts, when GRAFANA_URL is set; otherwise how to
// connect Grafana. The CSP's frame-src admits GRAFANA_URL's origin only (proxy.ts).
import { panelUrl, type PanelRef } from '@/lib/charts/grafana';
import { readTheme } from '@/lib/charts/theme';

export async function GrafanaPanels({
  panels,
  fromMs,
  toMs,
}: {
  panels: PanelRef[];
  fromMs: number;
  toMs: number;
}) {
  const theme = await readTheme();
  const urls = panels.map((p) => panelUrl(p, fromMs, toMs, theme === 'system' ? null : theme));
  if (urls.some((u) => u === null))
    return (
      <p className="muted" data-testid="grafana-hint">
        Grafana is not connected. Set <code>GRAFANA_URL</code> to a Grafana that has acktrail&apos;s
        dashboards provisioned (<code>grafana/</code>, with <code>allow_embedding = true</code>) to
        see its panels here; <code>docker compose up</code> runs one.
      </p>
    );
  return (
    <div className="grafana-panels" data-testid="grafana-panels">
      {panels.map((p, i) => (
        <iframe
          key={`${p.uid}-${p.panelId}`}
          src={urls[i]!}
          title={`${p.title} (Grafana)`}
          loading="lazy"
        />
      ))}
    </div>
  );
}
