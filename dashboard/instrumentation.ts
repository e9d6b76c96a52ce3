// Runs once as the server starts: a dashboard whose settings are wrong does not start
// (lib/config/startup.ts), and every request is stamped with its TCP peer's address (lib/auth/peer.ts).
export async function register() {
  if (process.env.NEXT_RUNTIME === 'nodejs') {
    const { stampPeerAddresses } = await import('./lib/auth/peer');
    stampPeerAddresses();
    const { checkSettings } = await import('./lib/config/startup');
    await checkSettings();
  }
}
