// What the `acktrail` command prints: text from outside (a channel name a Redis client published,
// a broker's or a database's error message, a value of the configuration) reaches a terminal. Every
// line goes out through here: control characters (C0 but newline and tab, DEL, C1) and the
// bidirectional overrides are written as `\uXXXX`, visible and inert, so nothing printed can erase a
// line, set the terminal's title or reorder what is shown. `\uXXXX` is also a JSON escape, so JSON
// stays JSON.

// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
// eslint-disable-next-line no-control-regex -- the same, newlines and tabs included
const UNSAFE_IN_LINE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

const escape = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** `text` safe to print: newlines and tabs kept unless `oneLine`, every other control escaped. */
export function printable(text: string, oneLine = false): string {
  return text.replace(oneLine ? UNSAFE_IN_LINE : UNSAFE, escape);
}

/** Writes a line to standard output, made printable. */
export function out(text: string): void {
  process.stdout.write(`${printable(text)}\n`);
}

/** Writes a line to standard error, made printable. */
export function err(text: string): void {
  process.stderr.write(`${printable(text)}\n`);
}
