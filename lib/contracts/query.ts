/**
 * A URL's query string read against the zod object of what it may hold. A parameter the schema does
 * not name (`?flag=…` where the list takes `badge`) or one given twice would otherwise be dropped
 * without a word and the list would answer as if unfiltered; here each is a named problem. The API,
 * the memory route and the runs page all read their query through this.
 */
import type { z } from "zod";
import { AppError, type FieldErrors, fieldErrorsOf } from "./errors";

export interface QueryRead {
  /** Each parameter given once that the schema names, as its text. */
  values: Record<string, string>;
  /** Parameters the schema does not name. */
  unknown: string[];
  /** Parameters given more than once. */
  repeated: string[];
}

/**
 * A number as a client writes one: decimal digits, maybe a minus and a fraction (the field's schema
 * then says whether it must be whole). `z.coerce.number()` would also read " " as 0, "0x10" as 16
 * and "1e3" as 1000 — a seq or cursor nobody sent.
 */
const DECIMAL_NUMBER = /^-?\d{1,20}(\.\d{1,20})?$/;

/** Whether a query field takes a number (`z.coerce.number()`, maybe optional or with a default). */
function takesNumber(field: z.ZodType | undefined): boolean {
  let def = field?._zod.def as { type: string; innerType?: z.ZodType } | undefined;
  while (def && (def.type === "optional" || def.type === "default" || def.type === "prefault") && def.innerType)
    def = def.innerType._zod.def as typeof def;
  return def?.type === "number";
}

/**
 * A numeric request header (`Last-Event-ID`) as text fit for its query field's schema, or
 * undefined when it is not decimal digits: a header is read no more leniently than `?after=`.
 */
export function decimalHeader(value: string | null): string | undefined {
  return value !== null && DECIMAL_NUMBER.test(value) ? value : undefined;
}

export function allowedParams(schema: z.ZodObject | undefined): string[] {
  return schema ? Object.keys(schema.shape) : [];
}

export function readQuery(search: URLSearchParams, schema: z.ZodObject | undefined): QueryRead {
  const allowed = new Set(allowedParams(schema));
  const out: QueryRead = { values: {}, unknown: [], repeated: [] };
  for (const key of new Set(search.keys())) {
    if (!allowed.has(key)) out.unknown.push(key);
    else if (search.getAll(key).length > 1) out.repeated.push(key);
    else out.values[key] = search.get(key) ?? "";
  }
  return out;
}

function unknownMessage(unknown: readonly string[], allowed: readonly string[]): string {
  const names = unknown.map((k) => `"${k}"`).join(", ");
  const takes = allowed.length ? `it takes ${allowed.join(", ")}` : "it takes no query parameters";
  return `Unknown query parameter${unknown.length === 1 ? "" : "s"} ${names}: ${takes}.`;
}

/**
 * The query as the schema's output, or `invalid_input` naming each unknown, repeated or invalid
 * parameter (an invalid one carries zod's message, which lists an enum's allowed values).
 */
export function parseQuery<S extends z.ZodObject>(search: URLSearchParams, schema: S): z.output<S>;
export function parseQuery(search: URLSearchParams, schema: z.ZodObject | undefined): unknown;
export function parseQuery(search: URLSearchParams, schema: z.ZodObject | undefined): unknown {
  const read = readQuery(search, schema);
  const allowed = allowedParams(schema);
  const fieldErrors: FieldErrors = {};
  for (const key of read.unknown) fieldErrors[key] = [`not a parameter here; allowed: ${allowed.join(", ") || "none"}`];
  for (const key of read.repeated) fieldErrors[key] = ["given more than once; give it once"];
  if (read.unknown.length) throw new AppError("invalid_input", unknownMessage(read.unknown, allowed), { fieldErrors });
  if (read.repeated.length)
    throw new AppError("invalid_input", `Query parameter given more than once: ${read.repeated.join(", ")}.`, {
      fieldErrors,
    });
  // `?bank=` is no filter a reader can see: refused like an unknown one, not read as "every bank".
  const empty = Object.keys(read.values).filter((k) => read.values[k] === "");
  if (empty.length) {
    for (const key of empty) fieldErrors[key] = ["empty: give a value or leave the parameter out"];
    throw new AppError("invalid_input", `Empty query parameter: ${empty.join(", ")}.`, { fieldErrors });
  }
  if (!schema) return undefined;
  const notDecimal = Object.keys(read.values).filter(
    (k) => takesNumber(schema.shape[k] as z.ZodType | undefined) && !DECIMAL_NUMBER.test(read.values[k] ?? ""),
  );
  if (notDecimal.length) {
    for (const key of notDecimal)
      fieldErrors[key] = [`a number in decimal digits (got ${JSON.stringify(read.values[key])})`];
    throw new AppError(
      "invalid_input",
      `Invalid query parameter ${notDecimal.map((k) => `${k}: a number in decimal digits (got ${JSON.stringify(read.values[k])})`).join("; ")}.`,
      { fieldErrors },
    );
  }
  const parsed = schema.safeParse(read.values);
  if (parsed.success) return parsed.data;
  const errors = fieldErrorsOf(parsed.error.issues);
  const detail = Object.entries(errors)
    .map(([k, messages]) => `${k}: ${messages.join("; ")}`)
    .join("; ");
  throw new AppError("invalid_input", `Invalid query parameter ${detail}.`, { fieldErrors: errors });
}
