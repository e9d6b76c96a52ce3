// The settings check at start (instrumentation.ts): no DASHBOARD_SECRET without DASHBOARD_AUTH=none,
// a short or example secret, or a bad URL stops the server with the name of the setting.
import 'server-only';

export async function checkSettings(): Promise<void> {
  try {
    // Loaded here: a bad URL throws while the config module loads.
    const { authSettings } = await import('./settings');
    if (authSettings().mode === 'none')
      console.warn(
        'acktrail dashboard: DASHBOARD_AUTH=none: every page is open to anyone who reaches it',
      );
  } catch (err) {
    console.error(`acktrail dashboard: ${(err as Error).message}`);
    process.exit(2);
  }
}
