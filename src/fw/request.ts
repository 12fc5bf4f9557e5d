// Request contracts: a name and a zod schema. The validated value is exposed on the
// endpoint as the snake_case of the name (CreateUserRequest -> this.create_user_request).
import { z } from "zod";
import { UnprocessableEntity, type FieldIssue, type HttpError } from "./errors.ts";

type SnakeChars<S extends string> = S extends `${infer C}${infer Rest}` ? `${C extends Lowercase<C> ? C : `_${Lowercase<C>}`}${SnakeChars<Rest>}` : S;
type TrimUnderscore<S extends string> = S extends `_${infer R}` ? R : S;
/** Type-level snake_case of a PascalCase name, identical to `snake_case()` at run time. */
export type SnakeCase<S extends string> = TrimUnderscore<SnakeChars<S>>;

export function snake_case(name: string): string {
  let out = "";
  for (const ch of name) out += ch !== ch.toLowerCase() ? `_${ch.toLowerCase()}` : ch;
  return out.startsWith("_") ? out.slice(1) : out;
}

export type InvalidHandler = (issues: FieldIssue[]) => HttpError;

/**
 * Where a contract's fields may come from: the route's parameters (the path, RFC 3986 §3.3),
 * the query string (§3.4), the body. A field may have to be refused in the URL, where it ends
 * up in logs and Referer headers: client credentials, for one (RFC 6749 §2.3.1).
 */
export type RequestSource = "path" | "query" | "body";

/**
 * Every source, in merge order: a later source wins a field both carry (query, then body,
 * then path).
 */
const ALL_SOURCES: readonly RequestSource[] = Object.freeze(["query", "body", "path"] as const);

/** The checked `from` option: a frozen list in merge order, whatever order it was given in. */
function sources_of(contract: string, from: unknown): readonly RequestSource[] {
  if (from === undefined) return ALL_SOURCES;
  const expected = `a non-empty list of ${ALL_SOURCES.map((s) => JSON.stringify(s)).join(", ")}`;
  if (!Array.isArray(from) || from.length === 0) throw new TypeError(`${contract}: \`from\` must be ${expected}, got ${describe(from)}`);
  for (const source of from) {
    if (!ALL_SOURCES.includes(source)) throw new TypeError(`${contract}: unknown source ${describe(source)} in \`from\` (expected ${expected})`);
  }
  return Object.freeze(ALL_SOURCES.filter((source) => from.includes(source)));
}

function describe(value: unknown): string {
  return Array.isArray(value) ? `[${value.map(describe).join(", ")}]` : typeof value === "string" ? JSON.stringify(value) : String(value);
}

export interface RequestContract<N extends string = string, S extends z.ZodType = z.ZodType> {
  readonly name: N;
  readonly property: SnakeCase<N>;
  readonly schema: S;
  /** Turns validation issues into the error to raise (default: 422 UnprocessableEntity). */
  readonly on_invalid: InvalidHandler;
  /** Whether the endpoint reads a body at all (EmptyRequest does not). */
  readonly reads_body: boolean;
  /**
   * The sources merged into the validated input, in merge order (query, then body, then path:
   * a later one wins a field both carry). A source not listed is not seen by the schema; a
   * body is still read and parsed (same 400/413/415 rules) and stays on `request.body`.
   */
  readonly from: readonly RequestSource[];
}

export function Request<const N extends string, S extends z.ZodType>(
  name: N,
  schema: S,
  options: { on_invalid?: InvalidHandler; from?: readonly [RequestSource, ...RequestSource[]] } = {},
): RequestContract<N, S> {
  if (!/^[A-Za-z][A-Za-z0-9]*$/.test(name)) throw new TypeError(`Request contract name must be PascalCase letters and digits: ${JSON.stringify(name)}`);
  const from = sources_of(name, options.from);
  return Object.freeze({
    name,
    property: snake_case(name) as SnakeCase<N>,
    schema,
    on_invalid: options.on_invalid ?? ((issues: FieldIssue[]) => new UnprocessableEntity(issues)),
    reads_body: true,
    from,
  });
}

/** The contract of endpoints that take no input beyond route and query parameters. */
export const EmptyRequest: RequestContract<"EmptyRequest", z.ZodObject<{}>> = Object.freeze({
  name: "EmptyRequest",
  property: "empty_request",
  schema: z.object({}),
  on_invalid: (issues: FieldIssue[]) => new UnprocessableEntity(issues),
  reads_body: false,
  from: ALL_SOURCES,
});

export function issues_of(error: z.ZodError): FieldIssue[] {
  return error.issues.flatMap((issue) => {
    const at = issue.path.map(String);
    // A member a strict object does not know is named itself, so the caller sees which one.
    if (issue.code === "unrecognized_keys") return issue.keys.map((key) => ({ field: [...at, key].join("."), message: `is not a member this request accepts (${issue.message})` }));
    return [{ field: at.length ? at.join(".") : "(root)", message: issue.message }];
  });
}
