/**
 * Whether an entry matches a filter (RFC 4511 §4.5.1.7), in the three values the RFC uses:
 * TRUE, FALSE and Undefined (an attribute we do not hold, an assertion value that is not of the
 * attribute's syntax, a rule the syntax has not, an unknown matching rule). `not` of Undefined
 * is Undefined; an entry is returned only when its filter is TRUE.
 *
 * Extensible match (§4.5.1.7.7) knows the equality rules below by OID or name, and the
 * in-chain rule of `memberOf` filters (1.2.840.113556.1.4.1941): groups do not nest here, so
 * "member through any chain" is "member".
 */
import { parse_dn } from "./dn.ts";
import type { Filter } from "./filter.ts";
import { attribute_type, normalized, ORDERED, SUBSTRINGS, type AttributeType, type Syntax } from "./schema.ts";
import { username_key } from "../../store/usernames.ts";

/**
 * An entry as filters see it: its DN and its attributes by their schema name; `types`, the
 * entry's own types beyond the schema's (custom_attributes.ts), by lowercased name.
 */
export type Entry = { dn: string; attributes: Readonly<Record<string, readonly string[]>>; types?: Readonly<Record<string, AttributeType>> };

/** The type `description` names in `entry`: the schema's, else one of the entry's own; null when neither. */
export function type_in(entry: Entry, description: string): AttributeType | null {
  return attribute_type(description) ?? entry.types?.[description.toLowerCase()] ?? null;
}

type Tri = boolean | undefined;

/** Matching rules usable in an extensible match, with the syntax whose equality they are (RFC 4517 §4.2). */
const RULES: Record<string, Syntax> = {
  "2.5.13.1": "dn",
  distinguishednamematch: "dn",
  "1.2.840.113556.1.4.1941": "dn",
  "2.5.13.2": "text",
  caseignorematch: "text",
  "2.5.13.5": "exact",
  caseexactmatch: "exact",
  "2.5.13.14": "integer",
  integermatch: "integer",
  "2.5.13.20": "phone",
  telephonenumbermatch: "phone",
  "1.3.6.1.1.16.2": "uuid",
  uuidmatch: "uuid",
};

/** True when the filter is TRUE for the entry. */
export function matches(filter: Filter, entry: Entry): boolean {
  return evaluate(filter, entry) === true;
}

function evaluate(filter: Filter, entry: Entry): Tri {
  switch (filter.type) {
    case "and": {
      let result: Tri = true;
      for (const f of filter.filters) {
        const r = evaluate(f, entry);
        if (r === false) return false;
        if (r === undefined) result = undefined;
      }
      return result;
    }
    case "or": {
      let result: Tri = false;
      for (const f of filter.filters) {
        const r = evaluate(f, entry);
        if (r === true) return true;
        if (r === undefined) result = undefined;
      }
      return result;
    }
    case "not": {
      const r = evaluate(filter.filter, entry);
      return r === undefined ? undefined : !r;
    }
    case "present": {
      const type = type_in(entry, filter.attribute);
      return type !== null && (entry.attributes[type.name]?.length ?? 0) > 0;
    }
    case "equal":
    case "approx": {
      const type = type_in(entry, filter.attribute);
      return type === null ? undefined : equal(type.syntax, entry.attributes[type.name] ?? [], filter.value);
    }
    case "greater_or_equal":
    case "less_or_equal": {
      const type = type_in(entry, filter.attribute);
      if (type === null || !ORDERED.has(type.syntax)) return undefined;
      const assertion = normalized(type.syntax, filter.value);
      if (assertion === null) return undefined;
      const ge = filter.type === "greater_or_equal";
      return (entry.attributes[type.name] ?? []).some((v) => {
        const value = normalized(type.syntax, v);
        return value !== null && (ge ? value >= assertion : value <= assertion);
      });
    }
    case "substrings":
      return substrings(type_in(entry, filter.attribute), entry, filter);
    case "extensible":
      return extensible(filter, entry);
  }
}

function equal(syntax: Syntax, values: readonly string[], asserted: string): Tri {
  const assertion = normalized(syntax, asserted);
  if (assertion === null) return undefined;
  return values.some((v) => normalized(syntax, v) === assertion);
}

/** A substring part in the form its syntax compares, spaces kept (they may be what is looked for). */
function part(syntax: Syntax, value: string): string {
  if (syntax === "phone") return value.replace(/[\s-]/g, "").toLowerCase();
  const spaced = value.replace(/\s+/g, " ");
  return syntax === "text" ? username_key(spaced) : spaced;
}

function substrings(type: AttributeType | null, entry: Entry, filter: Extract<Filter, { type: "substrings" }>): Tri {
  if (type === null || !SUBSTRINGS.has(type.syntax)) return undefined;
  const syntax = type.syntax;
  const initial = filter.initial === null ? null : part(syntax, filter.initial);
  const final = filter.final === null ? null : part(syntax, filter.final);
  const any = filter.any.map((a) => part(syntax, a));
  return (entry.attributes[type.name] ?? []).some((raw) => {
    const value = part(syntax, raw).trim();
    let at = 0;
    if (initial !== null) {
      if (!value.startsWith(initial)) return false;
      at = initial.length;
    }
    let end = value.length;
    if (final !== null) {
      if (!value.endsWith(final) || value.length - final.length < at) return false;
      end = value.length - final.length;
    }
    for (const piece of any) {
      const found = value.indexOf(piece, at);
      if (found < 0 || found + piece.length > end) return false;
      at = found + piece.length;
    }
    return true;
  });
}

function extensible(filter: Extract<Filter, { type: "extensible" }>, entry: Entry): Tri {
  const rule = filter.rule === null ? null : RULES[filter.rule.toLowerCase()];
  // §4.5.1.7.7: a matching rule the server does not know makes the item Undefined.
  if (rule === undefined) return undefined;
  const type = filter.attribute === null ? null : type_in(entry, filter.attribute);
  if (filter.attribute !== null && type === null) return undefined;
  const syntax = rule ?? type!.syntax;
  if (type !== null && rule !== null && rule !== type.syntax) return undefined;
  // Without a type: every attribute of the rule's syntax.
  const names = type !== null ? [type.name] : Object.keys(entry.attributes).filter((name) => type_in(entry, name)?.syntax === syntax);
  let result: Tri = false;
  for (const name of names) {
    const r = equal(syntax as Syntax, entry.attributes[name] ?? [], filter.value);
    if (r === true) return true;
    if (r === undefined) result = undefined;
  }
  // dnAttributes: the values of the entry's own DN count too.
  if (filter.dn_attributes) {
    for (const rdn of parse_dn(entry.dn) ?? []) {
      for (const ava of rdn) {
        if (type !== null && attribute_type(ava.type)?.name !== type.name) continue;
        const ava_type = attribute_type(ava.type);
        if (ava_type !== null && ava_type.syntax === syntax && equal(syntax as Syntax, [ava.value], filter.value) === true) return true;
      }
    }
  }
  return result;
}
