// Request input: query string and body, parsed by Content-Type.
// A repeated key becomes an array, so a contract expecting one string rejects it
// instead of silently keeping one of the values.
import { BadRequest, PayloadTooLarge, UnsupportedMediaType } from "./errors.ts";

export type Input = Record<string, string | string[]>;

function add(out: Input, key: string, value: string): void {
  const seen = out[key];
  if (seen === undefined) out[key] = value;
  else if (typeof seen === "string") out[key] = [seen, value];
  else seen.push(value);
}

/** True when URLSearchParams would return `search`'s pieces unchanged: ASCII, no `%` or `+`, no leading `?`. */
function needs_no_decoding(search: string): boolean {
  if (search.charCodeAt(0) === 0x3f) return false;
  for (let i = 0; i < search.length; i++) {
    const c = search.charCodeAt(i);
    if (c === 0x25 || c === 0x2b || c > 0x7e) return false;
  }
  return true;
}

/** More than `max_pairs` parameters: 400 (a hash-flooding or CPU-bound parse is refused early). */
function too_many(max_pairs: number): BadRequest {
  return new BadRequest(`More than ${max_pairs} parameters`);
}

export function parse_pairs(search: string, max_pairs = Number.POSITIVE_INFINITY): Input {
  const out: Input = Object.create(null);
  if (search.length === 0) return out;
  let count = 0;
  if (!needs_no_decoding(search)) {
    for (const [key, value] of new URLSearchParams(search)) {
      if (++count > max_pairs) throw too_many(max_pairs);
      add(out, key, value);
    }
    return out;
  }
  // Same pieces as URLSearchParams, without building it (nothing to decode).
  let from = 0;
  while (from <= search.length) {
    let to = search.indexOf("&", from);
    if (to === -1) to = search.length;
    if (to > from) {
      if (++count > max_pairs) throw too_many(max_pairs);
      const eq = search.indexOf("=", from);
      if (eq === -1 || eq > to) add(out, search.slice(from, to), "");
      else add(out, search.slice(from, eq), search.slice(eq + 1, to));
    }
    from = to + 1;
  }
  return out;
}

/** The parse of an absent query: shared by every such request, so it allocates nothing. */
export const NO_PAIRS: Input = Object.freeze(Object.create(null));

/** The query string of `url` (after the first `?`, RFC 3986 §3.4), or NO_PAIRS when there is none. */
export function query_of(url: string, max_pairs = Number.POSITIVE_INFINITY): Input {
  const at = url.indexOf("?");
  return at === -1 ? NO_PAIRS : parse_pairs(url.slice(at + 1), max_pairs);
}

/** First value of each key: the `params` view of a query string. */
export function first_values(input: Input, into: Record<string, string>): void {
  for (const key in input) {
    const value = input[key]!;
    into[key] = typeof value === "string" ? value : value[0]!;
  }
}

function media_type(header: string): string {
  const semi = header.indexOf(";");
  return (semi === -1 ? header : header.slice(0, semi)).trim().toLowerCase();
}

/**
 * Reads and parses the body. Returns undefined when there is none.
 * JSON must be an object; forms become string/array records; other types are 415.
 */
export async function read_body(request: Request, limit: number, max_pairs = Number.POSITIVE_INFINITY): Promise<Record<string, unknown> | undefined> {
  const length = request.headers.get("content-length");
  if (length !== null && Number(length) > limit) throw new PayloadTooLarge(`Body larger than ${limit} bytes`);
  const content_type = request.headers.get("content-type");
  if (request.body === null) return undefined;
  const bytes = await request.arrayBuffer();
  if (bytes.byteLength > limit) throw new PayloadTooLarge(`Body larger than ${limit} bytes`);
  if (bytes.byteLength === 0) return undefined;
  if (content_type === null) throw new UnsupportedMediaType("A body needs a Content-Type: application/json or application/x-www-form-urlencoded");
  const type = media_type(content_type);
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new BadRequest("The body is not valid UTF-8");
  }
  if (type === "application/json" || (type.startsWith("application/") && type.endsWith("+json"))) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new BadRequest("Malformed JSON body");
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) throw new BadRequest("The JSON body must be an object");
    return value as Record<string, unknown>;
  }
  if (type === "application/x-www-form-urlencoded") return parse_pairs(text, max_pairs);
  throw new UnsupportedMediaType(`Unsupported Content-Type ${type}: use application/json or application/x-www-form-urlencoded`);
}
