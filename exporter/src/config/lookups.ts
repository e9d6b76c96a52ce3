// Business-key lookups (pipeline/lookups.ts, docs/lookups.md): a value a customer gives support
// (an e-mail, a payment or shipment reference) mapped to aggregate or event ids by a query the
// team writes, run with the pipeline database's read-only role. The value is the query's one
// parameter ($1), never part of its text.
import { z } from 'zod';
import { seconds } from './primitives.js';
import { isLinearRegex } from '../linear-regex.js';

/** The longest value a lookup takes (an e-mail address is at most 254 characters). */
export const MAX_LOOKUP_VALUE = 320;

const lookup = z.strictObject({
  /** Shown to support beside what it found ("customer-email"). */
  name: z
    .string()
    .regex(/^[a-z][a-z0-9-]{0,39}$/, 'must be lower-case letters, digits and dashes, at most 40'),
  /** What the value is, in support's words ("the customer's e-mail address"). */
  description: z.string().max(200).optional(),
  /** Only values this matches are tried (RE2 syntax, run in linear time): `@` for e-mails. */
  matches: z
    .string()
    .max(500)
    .refine(
      isLinearRegex,
      'must be a regular expression in RE2 syntax (no back-references or look-around)',
    )
    .optional(),
  /**
   * One SELECT whose first column is the ids, text, with the value as $1 and no other parameter;
   * newest first is the team's choice (ORDER BY). Read-only, read at most maxRows rows.
   */
  query: z
    .string()
    .min(1)
    .max(4000)
    .refine((q) => /\$1(?!\d)/.test(q), 'must use $1 for the value')
    .refine((q) => !/\$([2-9]|1\d)/.test(q), 'must use no parameter but $1')
    .refine((q) => !/;\s*\S/.test(q), 'must be one statement'),
  /** What the ids are: the pipeline's aggregates (outbox.aggregateType) or event ids. */
  returns: z.enum(['aggregate', 'event']),
  maxRows: z.number().int().min(1).max(100).default(20),
  timeoutSeconds: seconds(2),
});

export const lookups = z
  .array(lookup)
  .max(20)
  .default([])
  .superRefine((all, ctx) => {
    const seen = new Set<string>();
    for (const [i, l] of all.entries()) {
      if (seen.has(l.name))
        ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `${l.name} is named twice` });
      seen.add(l.name);
    }
  });

export type LookupConfig = z.output<typeof lookup>;
