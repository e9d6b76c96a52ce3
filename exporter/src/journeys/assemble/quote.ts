// Text from outside in acktrail's words: always a quotation with its speaker, never acktrail's own
// sentence. A reason header, a consumer's attribute or an unknown x-death word is quoted ("the
// message's header x-error says “…”"), cut to QUOTE_MAX characters and stripped of control and
// bidirectional-override characters, so that it can neither pass for a verdict nor rearrange the
// line it sits in; the broker's own x-death words and acktrail's decisions are said as they are.
import { isOwnWord, type Reason } from '../model/index.js';

export const QUOTE_MAX = 200;

// C0 and C1 controls, and the bidirectional marks, embeddings, overrides and isolates.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** `text` as a quotation: “…”, made safe to print. */
export function quoted(text: string): string {
  const safe = text.replace(UNSAFE, ' ').replace(/[“”]/g, '"').trim();
  const cut = safe.length > QUOTE_MAX ? `${safe.slice(0, QUOTE_MAX)}…` : safe;
  return `“${cut}”`;
}

/** A reason in words: acktrail's or the broker's own as is, anyone else's quoted with who said it. */
export function reasonWords(r: Reason): string {
  if (isOwnWord(r)) return r.text;
  switch (r.by) {
    case 'header':
      return `the message's header ${quoted(r.header ?? '')} says ${quoted(r.text)}`;
    case 'span':
      return `its consumer's span says ${quoted(r.text)}`;
    default:
      return `x-death says ${quoted(r.text)}`;
  }
}
