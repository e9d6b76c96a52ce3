// Value shapes the config file's sections share.
import { z } from 'zod';

/** A positive number of seconds, with its default. */
export const seconds = (def: number) => z.number().positive().default(def);
