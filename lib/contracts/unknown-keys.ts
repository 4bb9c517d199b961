/**
 * Fields a schema does not know, anywhere in an input: what `.strict()` does for one object, for a
 * whole contract at once (server actions take contracts that the API also reads, some of them not
 * strict). Each refusal names its field's path, as the API routes do.
 */
import type { z } from "zod";

interface Def {
  type: string;
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  innerType?: z.ZodType;
  in?: z.ZodType;
  element?: z.ZodType;
  options?: z.ZodType[];
  left?: z.ZodType;
  right?: z.ZodType;
  getter?: () => z.ZodType;
  valueType?: z.ZodType;
}

export interface UnknownField {
  path: (string | number)[];
  key: string;
}

function defOf(schema: z.ZodType): Def {
  return (schema as unknown as { _zod: { def: Def } })._zod.def;
}

function walk(schema: z.ZodType, value: unknown, path: (string | number)[], out: UnknownField[], depth: number) {
  if (depth > 64 || value === null || typeof value !== "object") return;
  const def = defOf(schema);
  switch (def.type) {
    case "optional":
    case "nullable":
    case "default":
    case "prefault":
    case "readonly":
    case "catch":
    case "nonoptional":
      if (def.innerType) walk(def.innerType, value, path, out, depth + 1);
      return;
    case "pipe":
      if (def.in) walk(def.in, value, path, out, depth + 1);
      return;
    case "lazy":
      if (def.getter) walk(def.getter(), value, path, out, depth + 1);
      return;
    case "array":
      if (Array.isArray(value) && def.element) {
        value.forEach((item, i) => {
          walk(def.element as z.ZodType, item, [...path, i], out, depth + 1);
        });
      }
      return;
    case "record":
      if (def.valueType && !Array.isArray(value)) {
        for (const [k, v] of Object.entries(value)) walk(def.valueType, v, [...path, k], out, depth + 1);
      }
      return;
    case "intersection":
      if (def.left) walk(def.left, value, path, out, depth + 1);
      if (def.right) walk(def.right, value, path, out, depth + 1);
      return;
    case "union": {
      // Known to any option is known: report only when every option finds something.
      let best: UnknownField[] | null = null;
      for (const option of def.options ?? []) {
        const found: UnknownField[] = [];
        walk(option, value, path, found, depth + 1);
        if (found.length === 0) return;
        if (!best || found.length < best.length) best = found;
      }
      if (best) out.push(...best);
      return;
    }
    case "object": {
      if (Array.isArray(value) || !def.shape) return;
      const open = def.catchall && defOf(def.catchall).type !== "never";
      for (const [k, v] of Object.entries(value)) {
        const field = def.shape[k];
        if (field) walk(field, v, [...path, k], out, depth + 1);
        else if (!open) out.push({ path, key: k });
      }
      return;
    }
    default:
      return;
  }
}

/** Every field of `value` that `schema` would drop (or refuse), with the path of the object holding it. */
export function unknownFields(schema: z.ZodType, value: unknown): UnknownField[] {
  const out: UnknownField[] = [];
  walk(schema, value, [], out, 0);
  return out;
}

/** As zod issues: one per unknown field, at the field's own path, like `.strict()` but named. */
export function unknownFieldIssues(
  schema: z.ZodType,
  value: unknown,
): { path: (string | number)[]; message: string }[] {
  return unknownFields(schema, value).map(({ path, key }) => ({
    path: [...path, key],
    message: `unknown field "${key}": this form does not take it`,
  }));
}
