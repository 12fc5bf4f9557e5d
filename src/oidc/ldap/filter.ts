/**
 * Search filters (RFC 4511 §4.5.1.7): their shape, and their BER form both ways. Decoding
 * counts depth and items as it goes (LIMITS.max_filter_depth, LIMITS.max_filter_items), so a
 * filter nested a thousand deep is refused at the first level too many, not after recursing
 * into it. The empty and/or of RFC 4526 (absolute true and false) are accepted.
 * Evaluating a filter against an entry is filter_match.ts.
 */
import { BerError, type BerReader, boolean, CONSTRUCTED, CONTEXT, LIMITS, lenient_string, octets, sequence, TAG } from "./ber.ts";

export type Filter =
  | { type: "and"; filters: Filter[] }
  | { type: "or"; filters: Filter[] }
  | { type: "not"; filter: Filter }
  | { type: "equal" | "greater_or_equal" | "less_or_equal" | "approx"; attribute: string; value: string }
  | { type: "substrings"; attribute: string; initial: string | null; any: string[]; final: string | null }
  | { type: "present"; attribute: string }
  /** RFC 4511 §4.5.1.7.7: `rule` or `attribute` (or both) is given. */
  | { type: "extensible"; rule: string | null; attribute: string | null; value: string; dn_attributes: boolean };

/** The context tags of the Filter CHOICE (RFC 4511 §4.5.1). */
const CHOICE = {
  and: CONTEXT | CONSTRUCTED | 0,
  or: CONTEXT | CONSTRUCTED | 1,
  not: CONTEXT | CONSTRUCTED | 2,
  equal: CONTEXT | CONSTRUCTED | 3,
  substrings: CONTEXT | CONSTRUCTED | 4,
  greater_or_equal: CONTEXT | CONSTRUCTED | 5,
  less_or_equal: CONTEXT | CONSTRUCTED | 6,
  present: CONTEXT | 7,
  approx: CONTEXT | CONSTRUCTED | 8,
  extensible: CONTEXT | CONSTRUCTED | 9,
} as const;

const AVA_TYPES = { [CHOICE.equal]: "equal", [CHOICE.greater_or_equal]: "greater_or_equal", [CHOICE.less_or_equal]: "less_or_equal", [CHOICE.approx]: "approx" } as const;

/** Reads the filter that is the next element of `reader`. */
export function read_filter(reader: BerReader): Filter {
  return read(reader, 0, { items: 0 });
}

function read(reader: BerReader, depth: number, count: { items: number }): Filter {
  if (depth > LIMITS.max_filter_depth) throw new BerError(`filter nested deeper than ${LIMITS.max_filter_depth}`);
  if (++count.items > LIMITS.max_filter_items) throw new BerError(`filter of more than ${LIMITS.max_filter_items} items`);
  const tag = reader.peek();
  switch (tag) {
    case CHOICE.and:
    case CHOICE.or: {
      const set = reader.constructed(tag, "filter set");
      const filters: Filter[] = [];
      while (!set.done) filters.push(read(set, depth + 1, count));
      return { type: tag === CHOICE.and ? "and" : "or", filters };
    }
    case CHOICE.not: {
      const inner = reader.constructed(tag, "not filter");
      const filter = read(inner, depth + 1, count);
      inner.end("not filter");
      return { type: "not", filter };
    }
    case CHOICE.equal:
    case CHOICE.greater_or_equal:
    case CHOICE.less_or_equal:
    case CHOICE.approx: {
      const ava = reader.constructed(tag, "attribute value assertion");
      const attribute = ava.string("attribute description");
      const value = lenient_string(ava.bytes_of("assertion value"));
      ava.end("attribute value assertion");
      return { type: AVA_TYPES[tag]!, attribute, value };
    }
    case CHOICE.substrings:
      return read_substrings(reader.constructed(tag, "substrings filter"));
    case CHOICE.present:
      return { type: "present", attribute: reader.string("present filter", CHOICE.present) };
    case CHOICE.extensible:
      return read_extensible(reader.constructed(tag, "extensible match"));
    default:
      throw new BerError(`unknown filter choice ${tag === undefined ? "(none)" : `0x${tag.toString(16)}`}`);
  }
}

/** RFC 4511 §4.5.1.7.2: at least one part; `initial` only first, `final` only last, each at most once. */
function read_substrings(reader: BerReader): Filter {
  const attribute = reader.string("attribute description");
  const parts = reader.constructed(TAG.sequence, "substrings");
  reader.end("substrings filter");
  let initial: string | null = null;
  let final: string | null = null;
  const any: string[] = [];
  let position = 0;
  while (!parts.done) {
    if (final !== null) throw new BerError("substrings: nothing may follow final");
    if (position >= LIMITS.max_list_items) throw new BerError("substrings: too many parts");
    const { tag, content } = parts.element();
    const value = lenient_string(content);
    if (tag === (CONTEXT | 0) && position === 0) initial = value;
    else if (tag === (CONTEXT | 1)) any.push(value);
    else if (tag === (CONTEXT | 2)) final = value;
    else throw new BerError("substrings: misplaced or unknown part");
    position++;
  }
  if (position === 0) throw new BerError("substrings: no part");
  return { type: "substrings", attribute, initial, any, final };
}

function read_extensible(reader: BerReader): Filter {
  const rule = reader.peek() === (CONTEXT | 1) ? reader.string("matching rule", CONTEXT | 1) : null;
  const attribute = reader.peek() === (CONTEXT | 2) ? reader.string("type", CONTEXT | 2) : null;
  const value = lenient_string(reader.bytes_of("match value", CONTEXT | 3));
  const dn_attributes = reader.peek() === (CONTEXT | 4) ? reader.boolean("dnAttributes", CONTEXT | 4) : false;
  reader.end("extensible match");
  if (rule === null && attribute === null) throw new BerError("extensible match names neither a matching rule nor a type");
  return { type: "extensible", rule, attribute, value, dn_attributes };
}

/** The BER form of `filter`. */
export function write_filter(filter: Filter): Uint8Array {
  switch (filter.type) {
    case "and":
    case "or":
      return sequence(CHOICE[filter.type], filter.filters.map(write_filter));
    case "not":
      return sequence(CHOICE.not, [write_filter(filter.filter)]);
    case "equal":
    case "greater_or_equal":
    case "less_or_equal":
    case "approx":
      return sequence(CHOICE[filter.type], [octets(filter.attribute), octets(filter.value)]);
    case "substrings": {
      const parts = [
        ...(filter.initial === null ? [] : [octets(filter.initial, CONTEXT | 0)]),
        ...filter.any.map((value) => octets(value, CONTEXT | 1)),
        ...(filter.final === null ? [] : [octets(filter.final, CONTEXT | 2)]),
      ];
      return sequence(CHOICE.substrings, [octets(filter.attribute), sequence(TAG.sequence, parts)]);
    }
    case "present":
      return octets(filter.attribute, CHOICE.present);
    case "extensible":
      return sequence(CHOICE.extensible, [
        ...(filter.rule === null ? [] : [octets(filter.rule, CONTEXT | 1)]),
        ...(filter.attribute === null ? [] : [octets(filter.attribute, CONTEXT | 2)]),
        octets(filter.value, CONTEXT | 3),
        ...(filter.dn_attributes ? [boolean(true, CONTEXT | 4)] : []),
      ]);
  }
}
