// Value shapes the config file's sections share.
import { z } from 'zod';

/** A positive number of seconds, with its default. */
export const seconds = (def: number) => z.number().positive().default(def);

/** A token or secret copied from the docs' examples is no token: refused with the key's name. */
export const ownSecret = z
  .string()
  .min(16, 'must be at least 16 characters (for example: openssl rand -hex 24)')
  .refine((v) => !/change-?me/i.test(v), 'is an example value from the docs; choose your own');

/** Lower-case words, as a pipeline names things in its verdicts. */
export const word = z
  .string()
  .regex(/^[a-z][a-z -]{0,39}$/, 'must be lower-case words, at most 40 letters');
/** Values of `acktrail.result`, as the pipeline writes them. */
export const resultWords = z.array(z.string().min(1).max(64)).max(20).default([]);
