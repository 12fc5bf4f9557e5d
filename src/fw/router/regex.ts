import { RouterError } from "./types.ts";

/** Segments longer than this are never tested against a constraint: they fail it. */
export const MAX_CONSTRAINED_SEGMENT = 256;

/**
 * Compiles a parameter constraint so it must match the whole segment. Rejects, by a static
 * scan, the constructs that let a regular expression backtrack without bound (nested
 * quantifiers such as `(a+)+`) or that we refuse to reason about (backreferences, lookarounds).
 */
export function compile_constraint(source: string, route: string): RegExp {
  const problem = unsafe_construct(source);
  if (problem !== null) throw new RouterError(`unsafe regex (${problem}) in route ${route}: (${source})`);
  try {
    return new RegExp(`^(?:${source})$`);
  } catch (error) {
    throw new RouterError(`bad regex in route ${route}: (${source}): ${(error as Error).message}`);
  }
}

type Group = { repeats: boolean };

/** Returns why `source` is unsafe, or null. */
export function unsafe_construct(source: string): string | null {
  const stack: Group[] = [{ repeats: false }];
  let i = 0;
  const n = source.length;
  while (i < n) {
    const c = source[i]!;
    if (c === "\\") {
      const next = source[i + 1] ?? "";
      if (/[1-9]/.test(next) || next === "k") return "backreference";
      i += 2;
      i = after_quantifier(source, i, stack, false);
      continue;
    }
    if (c === "[") {
      i = skip_class(source, i);
      i = after_quantifier(source, i, stack, false);
      continue;
    }
    if (c === "(") {
      if (source.startsWith("(?=", i) || source.startsWith("(?!", i) || source.startsWith("(?<=", i) || source.startsWith("(?<!", i)) {
        return "lookaround";
      }
      stack.push({ repeats: false });
      i++;
      continue;
    }
    if (c === ")") {
      const group = stack.pop();
      if (group === undefined || stack.length === 0) return "unbalanced parenthesis";
      i = after_quantifier(source, i + 1, stack, group.repeats);
      if (i < 0) return "nested quantifier";
      continue;
    }
    i = after_quantifier(source, i + 1, stack, false);
    if (i < 0) return "nested quantifier";
  }
  return stack.length === 1 ? null : "unbalanced parenthesis";
}

/**
 * Reads an optional quantifier at `i` applied to an atom (which itself `repeats` if it is a
 * group holding a repetition). Returns the next index, or -1 for a repetition of a repetition.
 */
function after_quantifier(source: string, i: number, stack: Group[], repeats: boolean): number {
  const c = source[i];
  let unbounded = false;
  let quantified = false;
  if (c === "*" || c === "+") {
    unbounded = quantified = true;
    i++;
  } else if (c === "?") {
    quantified = true;
    i++;
  } else if (c === "{") {
    const m = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(i));
    if (m !== null) {
      quantified = true;
      unbounded = m[2] !== undefined && (m[3] === "" || Number(m[3]) > 1);
      i += m[0].length;
    }
  }
  if (quantified && source[i] === "?") i++;
  if (unbounded && repeats) return -1;
  if (unbounded || repeats) stack[stack.length - 1]!.repeats = true;
  return i;
}

function skip_class(source: string, i: number): number {
  i++;
  if (source[i] === "]") i++;
  while (i < source.length && source[i] !== "]") i += source[i] === "\\" ? 2 : 1;
  return i + 1;
}
