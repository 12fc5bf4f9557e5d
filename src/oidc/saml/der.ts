/**
 * A minimal DER encoder (ITU-T X.690 §8, §10): the few ASN.1 types an X.509 certificate is made
 * of (RFC 5280 §4.1), enough for certificate.ts to build our self-signed signing certificate.
 * Only encoding: nothing here reads DER from anyone.
 */

/** X.690 §8.1.3: the definite length, short form below 128, else long form (big-endian, minimal). */
export function der_length(length: number): Uint8Array {
  if (!Number.isInteger(length) || length < 0) throw new RangeError(`DER length ${length}`);
  if (length < 0x80) return Uint8Array.of(length);
  const bytes: number[] = [];
  for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
  return Uint8Array.of(0x80 | bytes.length, ...bytes);
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.byteLength, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}

/** Tag, length, value. */
export function tlv(tag: number, ...content: Uint8Array[]): Uint8Array {
  const value = concat(content);
  return concat([Uint8Array.of(tag), der_length(value.byteLength), value]);
}

export const sequence = (...items: Uint8Array[]) => tlv(0x30, ...items);
export const set = (...items: Uint8Array[]) => tlv(0x31, ...items);
/** A context-specific constructed tag, [n] EXPLICIT (X.690 §8.14). */
export const explicit = (n: number, ...items: Uint8Array[]) => tlv(0xa0 | n, ...items);
export const null_value = () => Uint8Array.of(0x05, 0x00);

/** X.690 §8.3: a non-negative INTEGER from big-endian magnitude bytes, in its minimal two's-complement form. */
export function unsigned_integer(magnitude: Uint8Array): Uint8Array {
  let start = 0;
  while (start < magnitude.byteLength - 1 && magnitude[start] === 0) start++;
  const trimmed = magnitude.subarray(start);
  const bytes = trimmed.byteLength === 0 ? Uint8Array.of(0) : trimmed;
  // A leading 1 bit would read as negative: prefix a zero octet.
  return tlv(0x02, ...(bytes[0]! & 0x80 ? [Uint8Array.of(0), bytes] : [bytes]));
}

export function small_integer(value: number): Uint8Array {
  if (!Number.isInteger(value) || value < 0 || value > 0x7fffffff) throw new RangeError(`DER integer ${value}`);
  const bytes: number[] = [];
  for (let rest = value; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
  return unsigned_integer(Uint8Array.from(bytes));
}

/** X.690 §8.19: an OBJECT IDENTIFIER from its dotted form. */
export function oid(dotted: string): Uint8Array {
  const arcs = dotted.split(".").map((arc) => {
    if (!/^\d+$/.test(arc)) throw new RangeError(`OID arc "${arc}"`);
    return Number(arc);
  });
  if (arcs.length < 2 || arcs[0]! > 2 || (arcs[0]! < 2 && arcs[1]! > 39)) throw new RangeError(`OID ${dotted}`);
  const out: number[] = [];
  const push_arc = (arc: number) => {
    const septets: number[] = [arc & 0x7f];
    for (let rest = Math.floor(arc / 128); rest > 0; rest = Math.floor(rest / 128)) septets.unshift((rest & 0x7f) | 0x80);
    out.push(...septets);
  };
  push_arc(arcs[0]! * 40 + arcs[1]!);
  for (const arc of arcs.slice(2)) push_arc(arc);
  return tlv(0x06, Uint8Array.from(out));
}

/** X.690 §8.23.10: UTF8String. */
export const utf8_string = (value: string) => tlv(0x0c, new TextEncoder().encode(value));

/** X.690 §8.6: a BIT STRING of whole octets (no unused bits). */
export const bit_string = (bytes: Uint8Array) => tlv(0x03, Uint8Array.of(0), bytes);

const two = (n: number) => String(n).padStart(2, "0");

/**
 * RFC 5280 §4.1.2.5: a validity time — UTCTime (YYMMDDHHMMSSZ) through 2049, GeneralizedTime
 * (YYYYMMDDHHMMSSZ) from 2050; always UTC, whole seconds.
 */
export function x509_time(unix_seconds: number): Uint8Array {
  const d = new Date(unix_seconds * 1000);
  const rest = `${two(d.getUTCMonth() + 1)}${two(d.getUTCDate())}${two(d.getUTCHours())}${two(d.getUTCMinutes())}${two(d.getUTCSeconds())}Z`;
  const year = d.getUTCFullYear();
  if (year < 1950 || year > 9999) throw new RangeError(`certificate time ${year}`);
  const ascii = (text: string) => new TextEncoder().encode(text);
  return year < 2050 ? tlv(0x17, ascii(`${two(year % 100)}${rest}`)) : tlv(0x18, ascii(`${year}${rest}`));
}
