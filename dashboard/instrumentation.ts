// Runs once as the server starts: a dashboard whose settings are wrong does not start
// (lib/startup.ts), and every request is stamped with its TCP peer's address (lib/peer.ts).
export async function register() {
  if (process.env.NEXT_RUNTIME === 'nodejs') {
    const { stampPeerAddresses } = await import('./lib/peer');
    stampPeerAddresses();
    const { checkSettings } = await import('./lib/startup');
    await checkSettings();
  }
}
