// What a configuration error says beyond zod's words: for an unknown key, the nearest key the
// schema has at that place (a typo: statsIntervalSecond -> statsIntervalSeconds); for a missing
// one, "required". The schema is walked by the issue's path, through the wrappers zod puts
// around an object (optional, default, nullable, pipe) and into arrays and records.
import { distance } from 'fastest-levenshtein';
import type { z } from 'zod';

interface Def {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  element?: z.ZodType;
  valueType?: z.ZodType;
  shape?: Record<string, z.ZodType>;
}

const defOf = (s: z.ZodType): Def => (s as unknown as { def: Def }).def;

/** The object schema at `path`, or null where the path leaves the schema's objects. */
function objectAt(
  schema: z.ZodType,
  path: readonly PropertyKey[],
): Record<string, z.ZodType> | null {
  let s: z.ZodType | undefined = schema;
  let i = 0;
  while (s) {
    const d = defOf(s);
    if (['optional', 'default', 'nullable', 'prefault', 'readonly'].includes(d.type))
      s = d.innerType;
    else if (d.type === 'pipe') s = d.in;
    else if (i === path.length) return d.type === 'object' ? (d.shape ?? null) : null;
    else if (d.type === 'object') s = d.shape?.[String(path[i++])];
    else if (d.type === 'array' || d.type === 'record') {
      s = d.type === 'array' ? d.element : d.valueType;
      i++;
    } else return null;
  }
  return null;
}

/** The known key nearest to `key`, where one is near enough to be its typo. */
export function nearestKey(
  schema: z.ZodType,
  path: readonly PropertyKey[],
  key: string,
): string | null {
  const keys = Object.keys(objectAt(schema, path) ?? {});
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const k of keys) {
    const d = distance(key.toLowerCase(), k.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [k, d];
  }
  // A typo: a few edits, and fewer than a third of the key.
  return best !== null && bestDistance <= Math.max(2, Math.floor(best.length / 3)) ? best : null;
}

/** zod's "expected string, received undefined": the key is missing. */
export const isMissing = (issue: z.core.$ZodIssue): boolean =>
  issue.code === 'invalid_type' && /received undefined$/.test(issue.message);
