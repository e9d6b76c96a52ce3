// A line of `acktrail doctor`'s answer and what every check shares: its bound, how it names a
// source without credentials.
import { errorMessage } from '../../log.js';

export const TIMEOUT_MS = 5000;

export type Verdict = 'ok' | 'warn' | 'fail';

/** One line of the doctor's answer. */
export interface Finding {
  verdict: Verdict;
  /** The source, as the configuration names it. */
  source: string;
  said: string;
  /** What to do, when not ok. */
  fix?: string;
}

export const ok = (source: string, said: string): Finding => ({ verdict: 'ok', source, said });
export const bad = (
  verdict: 'warn' | 'fail',
  source: string,
  said: string,
  fix: string,
): Finding => ({ verdict, source, said, fix });
/** A source that could not be used at all: the error as it came, and the fix. */
export const failed = (source: string, err: unknown, fix: string): Finding[] => [
  bad('fail', source, errorMessage(err), fix),
];

/** Host and port of a URL: what the doctor prints of it (never its credentials). */
export const where = (url: string) => {
  try {
    return new URL(url).host;
  } catch {
    return '(not a URL)';
  }
};
