// Runs once as the server starts: a dashboard whose settings are wrong does not start
// (lib/startup.ts).
export async function register() {
  if (process.env.NEXT_RUNTIME === 'nodejs') {
    const { checkSettings } = await import('./lib/startup');
    await checkSettings();
  }
}
