// Regular expressions from outside the exporter's own code (a broker policy's pattern, any app
// user's queue name it runs over, the configuration's include, exclude and role patterns) run in
// RE2's engine (re2js, a port of RE2/J): linear in the subject whatever the pattern, so that no
// pattern can hold the event loop (`^x\.p\.(a+)+$` over 27 `a` and a `!` held V8's for 5 s).
// RE2 has no back-references or look-around: such a pattern does not compile here (a policy is then
// "not known", a configuration key is refused by name).
import { RE2JS } from 're2js';

export interface LinearRegex {
  /** Whether the pattern matches anywhere in `subject` (as RabbitMQ's re:run and RegExp.test). */
  test(subject: string): boolean;
}

/** Compiles a pattern with RE2's syntax; throws a SyntaxError that says why it cannot. */
export function linearRegex(pattern: string): LinearRegex {
  try {
    const re = RE2JS.compile(pattern);
    return { test: (subject) => re.test(subject) };
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new SyntaxError(`not a regular expression RE2 accepts: ${why}`, { cause: err });
  }
}

/** Whether RE2 accepts the pattern. */
export function isLinearRegex(pattern: string): boolean {
  try {
    linearRegex(pattern);
    return true;
  } catch {
    return false;
  }
}
