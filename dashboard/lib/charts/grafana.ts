// Grafana panel URLs for the panels of lib/charts/embeds.ts.
import 'server-only';
import { config } from '../config/settings';
import type { PanelRef } from './embeds';

export { EMBEDS, type PanelRef } from './embeds';

/** The panel alone (/d-solo/) over [from, to] in unix milliseconds; null without GRAFANA_URL. */
export function panelUrl(
  panel: PanelRef,
  fromMs: number,
  toMs: number,
  theme: 'light' | 'dark' | null,
): string | null {
  if (!config.grafanaUrl) return null;
  const q = new URLSearchParams({
    orgId: '1',
    panelId: String(panel.panelId),
    from: String(Math.floor(fromMs)),
    to: String(Math.ceil(toMs)),
  });
  if (theme) q.set('theme', theme);
  return `${config.grafanaUrl}/d-solo/${panel.uid}/${panel.slug}?${q.toString()}`;
}
