import { compile_constraint } from "./regex.ts";
import { RouterError } from "./types.ts";

/** One piece of a route pattern. Static text keeps its slashes; parameters span one segment. */
export type Token = { kind: "static"; text: string } | { kind: "param"; name: string; source: string | null; regex: RegExp | null } | { kind: "wildcard"; name: string };

function is_name_char(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 36; // a-z A-Z 0-9 _ $
}

/**
 * Parses `/users/:id(\\d+)/files/*rest` into tokens. A `:` or `*` starts a parameter only at the
 * start of a segment; elsewhere it is literal text. `*` must be the last segment.
 */
export function parse_pattern(pattern: string): Token[] {
  if (pattern.charCodeAt(0) !== 47 /* / */) throw new RouterError(`route must start with "/": ${JSON.stringify(pattern)}`);
  const tokens: Token[] = [];
  const names = new Set<string>();
  let text = "";
  let i = 0;
  const n = pattern.length;
  while (i < n) {
    const c = pattern[i]!;
    if (pattern.charCodeAt(i - 1) === 47 && (c === ":" || c === "*")) {
      let end = i + 1;
      while (end < n && is_name_char(pattern.charCodeAt(end))) end++;
      const name = c === "*" ? pattern.slice(i + 1, end) || "*" : pattern.slice(i + 1, end);
      if (name === "") throw new RouterError(`parameter without a name in route ${pattern}`);
      if (names.has(name)) throw new RouterError(`parameter ${name} appears twice in route ${pattern}`);
      names.add(name);
      let source: string | null = null;
      if (c === ":" && pattern[end] === "(") {
        const close = closing_paren(pattern, end);
        source = pattern.slice(end + 1, close);
        if (source === "") throw new RouterError(`empty regex in route ${pattern}`);
        end = close + 1;
      }
      if (end < n && pattern[end] !== "/") {
        throw new RouterError(`parameter ${name} must span a whole segment in route ${pattern}`);
      }
      if (text !== "") tokens.push({ kind: "static", text });
      text = "";
      if (c === "*") {
        if (end !== n) throw new RouterError(`wildcard must be the last segment in route ${pattern}`);
        tokens.push({ kind: "wildcard", name });
      } else {
        tokens.push({ kind: "param", name, source, regex: source === null ? null : compile_constraint(source, pattern) });
      }
      i = end;
      continue;
    }
    // static text: the rest of this segment and the "/" that ends it
    const slash = pattern.indexOf("/", i);
    const stop = slash === -1 ? n : slash + 1;
    const run = pattern.slice(i, stop);
    const bad = /[?#]/.exec(run);
    if (bad !== null) throw new RouterError(`route must not contain "${bad[0]}": ${pattern}`);
    text += run;
    i = stop;
  }
  if (text !== "") tokens.push({ kind: "static", text });
  return tokens;
}

/** The index of the `)` that closes the `(` at `open`, skipping escapes and character classes. */
function closing_paren(pattern: string, open: number): number {
  let depth = 0;
  let in_class = false;
  for (let i = open; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "\\") i++;
    else if (in_class) in_class = c !== "]";
    else if (c === "[") in_class = true;
    else if (c === "(") depth++;
    else if (c === ")" && --depth === 0) return i;
  }
  throw new RouterError(`unclosed "(" in route ${pattern}`);
}

export function is_static(tokens: Token[]): boolean {
  return tokens.length === 1 && tokens[0]!.kind === "static";
}

/** The pattern with parameter names erased: two routes with one shape can never both be reached. */
export function shape_of(tokens: Token[]): string {
  let shape = "";
  for (const t of tokens) {
    if (t.kind === "static") shape += t.text;
    else if (t.kind === "param") shape += t.source === null ? ":" : `:(${t.source})`;
    else shape += "*";
  }
  return shape;
}

/** Each parameter with its position: the shape of the pattern before it. */
export function param_positions(tokens: Token[]): { at: string; name: string }[] {
  const positions: { at: string; name: string }[] = [];
  tokens.forEach((t, k) => {
    if (t.kind === "param") positions.push({ at: shape_of(tokens.slice(0, k)), name: t.name });
  });
  return positions;
}
