// The dashboard's state changes (dead-letter replay, discard, stopping a bulk replay) are Server
// Actions (app/dead-letters/actions.ts): form posts from its own pages, by a signed-in operator,
// passed to the exporter with the operator token and the operator's name for the audit log.
// Anything else is refused with 403 (app/forbidden.tsx).
import 'server-only';
import { headers } from 'next/headers';
import { forbidden } from 'next/navigation';
import { currentSession } from './access';
import { crossSite } from './request';
import type { Session } from './session';

const ID = /^\d{1,18}$/;
const GROUP = /^[A-Za-z0-9_-]{1,1200}$/;
const JOB = /^[0-9a-f-]{36}$/;

/** The operator behind a form post; a post from another site's page or by a viewer is refused. */
export async function operatorOnly(): Promise<Session> {
  if (crossSite(await headers())) forbidden();
  const session = await currentSession();
  if (session?.role !== 'operator') forbidden();
  return session;
}

/** What a dead-letter form names: message ids, a group, and the page to go back to. */
export function selection(form: FormData) {
  const ids = form.getAll('ids').filter((v): v is string => typeof v === 'string' && ID.test(v));
  const group = field(form, 'group', GROUP);
  const back = field(form, 'back', ID);
  const page = back
    ? `/dead-letters/${back}`
    : group
      ? `/dead-letters/group/${group}`
      : '/dead-letters';
  return { ids, group, page };
}

/** A bulk replay's id, from the stop form. */
export const jobOf = (form: FormData) => field(form, 'job', JOB);

/** A form field that matches `pattern`, or null. */
function field(form: FormData, name: string, pattern: RegExp): string | null {
  const value = form.get(name);
  return typeof value === 'string' && pattern.test(value) ? value : null;
}

export const withParams = (page: string, params: Record<string, string>) =>
  `${page}?${new URLSearchParams(params).toString()}`;
