// Every string acktrail stores from outside (span names and attributes, Celery events) goes
// through scrub(): cut to a bounded length first, then e-mail addresses masked, NUL removed and
// lone surrogates replaced, each in one linear pass. Nothing here backtracks, so no input can
// make it slow: the work is bounded by SCAN_WINDOW, whatever the length of the input.

/** Longest string kept; longer ones end in "…". */
export const MAX_STRING = 200;
/**
 * How much of a string is looked at. An address is at most 254 characters (RFC 5321), so one
 * that starts before MAX_STRING ends inside the window and is masked before the final cut.
 */
const SCAN_WINDOW = MAX_STRING + 254;
const MASK = '<email>';

/** Characters that end an address on either side: `\s` as JavaScript defines it, and @<>"',;: */
function isAddressChar(code: number): boolean {
  switch (code) {
    case 0x40: // @
    case 0x3c: // <
    case 0x3e: // >
    case 0x22: // "
    case 0x27: // '
    case 0x2c: // ,
    case 0x3b: // ;
    case 0x3a: // :
      return false;
    default:
      return !isSpace(code);
  }
}

function isSpace(code: number): boolean {
  if (code <= 0x20) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

const isLetter = (code: number) => (code | 0x20) >= 0x61 && (code | 0x20) <= 0x7a;

/**
 * Where the address whose domain starts at `from` ends, or -1: the domain is a run of address
 * characters holding a `.` followed by at least two letters, the match ending after the last
 * such letters (as `[^\s@<>"',;:]+\.[A-Za-z]{2,}` would match it). `openEnd`: the text was cut
 * at `runEnd`, so a domain running into the cut may go on and is treated as an address.
 */
function domainEnd(s: string, from: number, runEnd: number, openEnd: boolean): number {
  if (openEnd && runEnd === s.length) return runEnd;
  // Scan back from the end of the run for the last "x.ab" shape; each position is read once.
  let letters = 0;
  for (let i = runEnd - 1; i > from; i--) {
    const c = s.charCodeAt(i);
    if (isLetter(c)) {
      letters++;
      continue;
    }
    if (c === 0x2e && letters >= 2) {
      // The letters after this dot: the match takes as many as follow it.
      let end = i + 1;
      while (end < runEnd && isLetter(s.charCodeAt(end))) end++;
      return end;
    }
    letters = 0;
  }
  return -1;
}

/**
 * Replaces every e-mail address with `<email>`, in one left-to-right pass: each character is
 * read a bounded number of times (a run between two `@` is read from each side once).
 */
export function maskEmails(s: string, openEnd = false): string {
  let out = '';
  let copied = 0; // s[0, copied) is already in out
  let at = s.indexOf('@');
  while (at !== -1) {
    let start = at;
    while (start > copied && isAddressChar(s.charCodeAt(start - 1))) start--;
    let runEnd = at + 1;
    while (runEnd < s.length && isAddressChar(s.charCodeAt(runEnd))) runEnd++;
    const end = start < at ? domainEnd(s, at + 1, runEnd, openEnd) : -1;
    if (end === -1) {
      at = s.indexOf('@', at + 1);
      continue;
    }
    out += s.slice(copied, start) + MASK;
    copied = end;
    at = s.indexOf('@', end);
  }
  return copied === 0 ? s : out + s.slice(copied);
}

/**
 * Bounds, masks and cleans a string that will be stored: at most MAX_STRING characters (plus
 * "…" when cut), e-mail addresses masked, no NUL (PostgreSQL text cannot hold one) and no lone
 * UTF-16 surrogate (nor can JSON in PostgreSQL), also where the cut splits a pair.
 */
export function scrub(s: string): string {
  const cut = s.length > SCAN_WINDOW;
  let out = cut ? s.slice(0, SCAN_WINDOW) : s;
  if (out.includes('@')) out = maskEmails(out, cut);
  if (out.includes('\0')) out = out.replaceAll('\0', '');
  if (cut || out.length > MAX_STRING) out = `${out.slice(0, MAX_STRING)}…`;
  return out.isWellFormed() ? out : out.toWellFormed();
}

/** The first `max + 1` characters at most: enough to tell that a string is too long. */
export const bounded = (s: string, max: number) => (s.length > max ? s.slice(0, max + 1) : s);
