// Who acts, as the exporter's audit log hears it: the signed-in operator's name, percent-encoded
// (a header carries Latin-1 only: a name in Cyrillic or CJK would make every operator call fail,
// and the exporter decodes it), and whether a trusted proxy named them.

/** A session's name and whether a trusted proxy gave it (lib/auth/session.ts). */
export interface Actor {
  name: string | null;
  verified: boolean;
}

export function actorHeaders(actor: Actor | null | undefined): Record<string, string> {
  if (!actor?.name) return {};
  return {
    'x-acktrail-actor': encodeURIComponent(actor.name),
    // The exporter believes this only with the operator token, which only the dashboard holds.
    ...(actor.verified ? { 'x-acktrail-actor-verified': 'proxy' } : {}),
  };
}
