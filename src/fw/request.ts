// Request contracts: a name and a zod schema. The validated value is exposed on the
// endpoint as the snake_case of the name (CreateUserRequest -> this.create_user_request).
import { z } from "zod";
import { UnprocessableEntity, type FieldIssue, type HttpError } from "./errors.ts";

type SnakeChars<S extends string> = S extends `${infer C}${infer Rest}`
  ? `${C extends Lowercase<C> ? C : `_${Lowercase<C>}`}${SnakeChars<Rest>}`
  : S;
type TrimUnderscore<S extends string> = S extends `_${infer R}` ? R : S;
/** Type-level snake_case of a PascalCase name, identical to `snake_case()` at run time. */
export type SnakeCase<S extends string> = TrimUnderscore<SnakeChars<S>>;

export function snake_case(name: string): string {
  let out = "";
  for (const ch of name) out += ch !== ch.toLowerCase() ? `_${ch.toLowerCase()}` : ch;
  return out.startsWith("_") ? out.slice(1) : out;
}

export type InvalidHandler = (issues: FieldIssue[]) => HttpError;

export interface RequestContract<N extends string = string, S extends z.ZodType = z.ZodType> {
  readonly name: N;
  readonly property: SnakeCase<N>;
  readonly schema: S;
  /** Turns validation issues into the error to raise (default: 422 UnprocessableEntity). */
  readonly on_invalid: InvalidHandler;
  /** Whether the endpoint reads a body at all (EmptyRequest does not). */
  readonly reads_body: boolean;
}

export function Request<const N extends string, S extends z.ZodType>(
  name: N,
  schema: S,
  options: { on_invalid?: InvalidHandler } = {},
): RequestContract<N, S> {
  if (!/^[A-Za-z][A-Za-z0-9]*$/.test(name)) throw new TypeError(`Request contract name must be PascalCase letters and digits: ${JSON.stringify(name)}`);
  return Object.freeze({
    name,
    property: snake_case(name) as SnakeCase<N>,
    schema,
    on_invalid: options.on_invalid ?? ((issues: FieldIssue[]) => new UnprocessableEntity(issues)),
    reads_body: true,
  });
}

/** The contract of endpoints that take no input beyond route and query parameters. */
export const EmptyRequest: RequestContract<"EmptyRequest", z.ZodObject<{}>> = Object.freeze({
  name: "EmptyRequest",
  property: "empty_request",
  schema: z.object({}),
  on_invalid: (issues: FieldIssue[]) => new UnprocessableEntity(issues),
  reads_body: false,
});

export function issues_of(error: z.ZodError): FieldIssue[] {
  return error.issues.map((issue) => ({
    field: issue.path.length ? issue.path.map(String).join(".") : "(root)",
    message: issue.message,
  }));
}
