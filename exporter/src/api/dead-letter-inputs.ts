// What the dead-letter API accepts, each input bounded and checked before the store is read (400
// naming what is wrong): ids, group ids (opaque to clients), list and audit queries, actor names.
import { EVENT_ID_SHAPE } from '@acktrail/conventions';
import { z } from 'zod';
import { STATES } from '../deadletters/store/store.js';

export const ID = z.string().regex(/^\d{1,18}$/, 'must be a dead letter id (digits)');
export const JOB = z.uuid('must be a replay job id');
export const MAX_GROUPS = 200;
/** A group is named by its queue and masked reason, as base64url JSON (opaque to clients). */
export const groupId = (queue: string, reasonGroup: string) =>
  Buffer.from(JSON.stringify([queue, reasonGroup])).toString('base64url');
export const group = z
  .string()
  .max(1200, 'is not a group id returned by this API')
  .transform((s, ctx) => {
    try {
      const v = JSON.parse(Buffer.from(s, 'base64url').toString()) as unknown;
      if (Array.isArray(v) && v.length === 2 && v.every((x) => typeof x === 'string'))
        return { queue: v[0] as string, reasonGroup: v[1] as string };
    } catch {
      // falls through
    }
    ctx.addIssue({ code: 'custom', message: 'is not a group id returned by this API' });
    return z.NEVER;
  });
const limit = (def: number, max: number) => z.coerce.number().int().min(1).max(max).default(def);

/** An event's entries, a page at a time: what the list and the audit log both take. */
const eventPage = {
  event_id: z.string().regex(EVENT_ID_SHAPE, 'must be an event id').optional(),
  before: ID.optional(),
  limit: limit(50, 500),
};
export const listQuery = z.strictObject({
  group: group.optional(),
  queue: z.string().max(255).optional(),
  state: z.enum(STATES).optional(),
  ...eventPage,
});
export const auditQuery = z.strictObject(eventPage);
/** An operator's name for the audit log: what the dashboard's proxy and sign-in names allow. */
export const ACTOR = /^[\p{L}\p{N} ._@:+-]{1,100}$/u;
