// The message body on the wire: small, details are read from the database (seed 000).
import { z } from 'zod';

export const ORDER_CREATED = 'order.created';

export const orderEventSchema = z.object({
  event_id: z.uuid(),
  event_type: z.string().min(1),
  schema_version: z.number().int().min(1),
  order_id: z.number().int().positive(),
});

export type OrderEvent = z.infer<typeof orderEventSchema>;

/** Parses a message body; returns a reason instead of throwing, for the dead-letter path. */
export function parseOrderEvent(
  body: Buffer,
): { ok: true; event: OrderEvent } | { ok: false; reason: string } {
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    return { ok: false, reason: 'malformed message: body is not JSON' };
  }
  const parsed = orderEventSchema.safeParse(json);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    return {
      ok: false,
      reason: `malformed message: ${first?.path.join('.') ?? ''} ${first?.message ?? ''}`.trim(),
    };
  }
  return { ok: true, event: parsed.data };
}
