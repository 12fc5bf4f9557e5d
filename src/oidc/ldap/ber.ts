/**
 * The subset of BER (ITU-T X.690) that LDAP uses (RFC 4511 §5.1): definite lengths only,
 * primitive OCTET STRINGs only, tags of one byte. Reading checks every length against what is
 * left BEFORE taking it, and constructed values nest at most `LIMITS.max_depth` deep, so a
 * malformed or hostile PDU is refused with a BerError and never makes us allocate what it
 * announces. Writing builds each value from its parts (no intermediate tree).
 */

/** Limits every PDU is held to, checked while reading (tests/oidc/ldap/codec.test.ts names the abuse cases). */
export const LIMITS = {
  /** The largest LDAPMessage accepted; a longer length prefix ends the connection before its body is read. */
  max_pdu_bytes: 1024 * 1024,
  /** Constructed values inside one another (a filter adds one level per and/or/not). */
  max_depth: 48,
  /** Nested and/or/not in one filter. */
  max_filter_depth: 24,
  /** Items in one filter, all levels together. */
  max_filter_items: 512,
  /** Attributes asked for by one search, controls of one message, values of one list. */
  max_list_items: 256,
} as const;

/** A PDU that is not valid BER or breaks a limit: the session answers protocolError and ends (RFC 4511 §4.1.1). */
export class BerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "BerError";
  }
}

/** Universal tags LDAP uses (X.680 §8.4). */
export const TAG = {
  boolean: 0x01,
  integer: 0x02,
  octet_string: 0x04,
  null: 0x05,
  enumerated: 0x0a,
  sequence: 0x30,
  set: 0x31,
} as const;

/** The class and form bits of a tag (X.690 §8.1.2). */
export const CONTEXT = 0x80;
export const APPLICATION = 0x40;
export const CONSTRUCTED = 0x20;

const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true });
const LENIENT_UTF8 = new TextDecoder("utf-8");
const UTF8 = new TextEncoder();

/** One element: its tag byte and its contents (a view into the PDU, not a copy). */
export type Element = { tag: number; content: Uint8Array };

/**
 * Reads the elements of one constructed value (or of a whole PDU) in order. `depth` is how deep
 * this value sits; `constructed()` refuses to go past LIMITS.max_depth.
 */
export class BerReader {
  private offset = 0;

  constructor(
    private readonly bytes: Uint8Array,
    readonly depth = 0,
  ) {}

  get done(): boolean {
    return this.offset >= this.bytes.length;
  }

  /** The next element's tag without taking it; undefined at the end. */
  peek(): number | undefined {
    return this.done ? undefined : this.bytes[this.offset];
  }

  /** Takes the next element, whatever its tag. */
  element(): Element {
    const { tag, start, end } = read_header(this.bytes, this.offset);
    this.offset = end;
    return { tag, content: this.bytes.subarray(start, end) };
  }

  /** Takes the next element, which must have `tag`. */
  expect(tag: number, what: string): Uint8Array {
    const next = this.peek();
    if (next !== tag) throw new BerError(`${what}: expected tag 0x${tag.toString(16)}, got ${next === undefined ? "the end" : `0x${next.toString(16)}`}`);
    return this.element().content;
  }

  /** A reader of the next element's contents, which must be constructed with `tag`. */
  constructed(tag: number, what: string): BerReader {
    return reader_of(this.expect(tag, what), this.depth + 1, what);
  }

  /** Refuses trailing elements (a SEQUENCE has exactly its components). */
  end(what: string): void {
    if (!this.done) throw new BerError(`${what}: unexpected trailing data`);
  }

  integer(what: string, tag: number = TAG.integer): number {
    return integer_of(this.expect(tag, what), what);
  }

  boolean(what: string, tag: number = TAG.boolean): boolean {
    return boolean_of(this.expect(tag, what), what);
  }

  /** An LDAPString or LDAPDN: UTF-8 (RFC 4511 §4.1.2); bytes that are not are a protocol error. */
  string(what: string, tag: number = TAG.octet_string): string {
    return string_of(this.expect(tag, what), what);
  }

  bytes_of(what: string, tag: number = TAG.octet_string): Uint8Array {
    return this.expect(tag, what);
  }
}

/** A reader of `content` as the components of a constructed value at `depth`. */
export function reader_of(content: Uint8Array, depth: number, what: string): BerReader {
  if (depth > LIMITS.max_depth) throw new BerError(`${what}: nested deeper than ${LIMITS.max_depth}`);
  return new BerReader(content, depth);
}

/**
 * The header of the element at `offset`: its tag, and where its contents start and end. Refuses
 * multi-byte tags, the indefinite length (RFC 4511 §5.1) and any length past the end of `bytes`.
 */
export function read_header(bytes: Uint8Array, offset: number): { tag: number; start: number; end: number } {
  const header = header_at(bytes, offset);
  if (header === null) throw new BerError("truncated element");
  const end = header.start + header.length;
  if (end > bytes.length) throw new BerError(`length ${header.length} runs past the end of its container`);
  return { tag: header.tag, start: header.start, end };
}

/**
 * The tag, contents' start and announced length at `offset`, or null while the header itself is
 * incomplete (a stream waits for more). The length is only announced: the caller checks it
 * before reading that far.
 */
export function header_at(bytes: Uint8Array, offset: number): { tag: number; start: number; length: number } | null {
  if (offset >= bytes.length) return null;
  const tag = bytes[offset]!;
  // X.690 §8.1.2.4: tag numbers of 31 and more take more bytes; LDAP has none.
  if ((tag & 0x1f) === 0x1f) throw new BerError("multi-byte tags are not used by LDAP");
  if (offset + 1 >= bytes.length) return null;
  const first = bytes[offset + 1]!;
  if (first < 0x80) return { tag, start: offset + 2, length: first };
  // RFC 4511 §5.1: only the definite form of length; 0x80 is the indefinite one.
  if (first === 0x80) throw new BerError("indefinite length is not allowed (RFC 4511 §5.1)");
  const count = first & 0x7f;
  // Four bytes already say 4 GiB; no PDU we accept comes near (LIMITS.max_pdu_bytes).
  if (count > 4) throw new BerError(`length of ${count} bytes is too long`);
  if (offset + 2 + count > bytes.length) return null;
  let length = 0;
  for (let i = 0; i < count; i++) length = length * 256 + bytes[offset + 2 + i]!;
  return { tag, start: offset + 2 + count, length };
}

/** A two's complement INTEGER or ENUMERATED of at most 5 bytes (LDAP's are 0..2^31-1, RFC 4511 §4.1.1). */
export function integer_of(content: Uint8Array, what: string): number {
  if (content.length === 0 || content.length > 5) throw new BerError(`${what}: integer of ${content.length} bytes`);
  let unsigned = 0;
  for (const byte of content) unsigned = unsigned * 256 + byte;
  return content[0]! >= 0x80 ? unsigned - 2 ** (8 * content.length) : unsigned;
}

export function boolean_of(content: Uint8Array, what: string): boolean {
  if (content.length !== 1) throw new BerError(`${what}: boolean of ${content.length} bytes`);
  // X.690 §8.2.2: any non-zero byte is TRUE in BER.
  return content[0] !== 0;
}

export function string_of(content: Uint8Array, what: string): string {
  try {
    return STRICT_UTF8.decode(content);
  } catch {
    throw new BerError(`${what}: not UTF-8`);
  }
}

/** An OCTET STRING read as text where bytes that are not UTF-8 cannot hurt (a password, an assertion value): they never match. */
export function lenient_string(content: Uint8Array): string {
  return LENIENT_UTF8.decode(content);
}

// ---- Writing ----

/** The length octets of `length` (X.690 §8.1.3: short form below 128, else long form). */
function length_octets(length: number): number[] {
  if (length < 0x80) return [length];
  const out: number[] = [];
  for (let n = length; n > 0; n = Math.floor(n / 256)) out.unshift(n % 256);
  return [0x80 | out.length, ...out];
}

/** One element: `tag`, the length, the contents. */
export function tlv(tag: number, content: Uint8Array): Uint8Array {
  const header = [tag, ...length_octets(content.length)];
  const out = new Uint8Array(header.length + content.length);
  out.set(header, 0);
  out.set(content, header.length);
  return out;
}

/** A constructed element of the given parts, in order. */
export function sequence(tag: number, parts: readonly Uint8Array[]): Uint8Array {
  let length = 0;
  for (const part of parts) length += part.length;
  const content = new Uint8Array(length);
  let at = 0;
  for (const part of parts) {
    content.set(part, at);
    at += part.length;
  }
  return tlv(tag, content);
}

/** The shortest two's complement of `value` (X.690 §8.3.2). */
export function integer(value: number, tag: number = TAG.integer): Uint8Array {
  if (!Number.isInteger(value) || value < -(2 ** 31) || value > 2 ** 31 - 1) throw new RangeError(`integer ${value} out of range`);
  const out: number[] = [];
  let n = value;
  do {
    out.unshift(((n % 256) + 256) % 256);
    n = Math.floor(n / 256);
  } while (n !== 0 && n !== -1);
  // A leading bit that says the wrong sign needs one more byte.
  if (value >= 0 && out[0]! >= 0x80) out.unshift(0);
  if (value < 0 && out[0]! < 0x80) out.unshift(0xff);
  return tlv(tag, Uint8Array.from(out));
}

export function boolean(value: boolean, tag: number = TAG.boolean): Uint8Array {
  // X.690 §11.1 (DER, which clients expect): TRUE is 0xFF.
  return tlv(tag, Uint8Array.of(value ? 0xff : 0));
}

export function octets(value: string | Uint8Array, tag: number = TAG.octet_string): Uint8Array {
  return tlv(tag, typeof value === "string" ? UTF8.encode(value) : value);
}

export function utf8(value: string): Uint8Array {
  return UTF8.encode(value);
}
