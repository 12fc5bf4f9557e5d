/**
 * The LDAP codec (src/oidc/ldap/ber.ts, messages.ts, client_codec.ts, filter.ts): every request
 * and response survives a round trip through BER (property tests), any bytes either decode or
 * raise a BerError (never another error), a stream is measured correctly from any prefix, and
 * the named abuse cases are refused by their limits before anything they announce is read.
 */
import { describe, expect, test } from "../../helpers/test_api.ts";
import fc from "fast-check";
import { BerError, LIMITS, sequence, tlv, TAG, integer, octets } from "../../../src/oidc/ldap/ber.ts";
import { decode_response, encode_request } from "../../../src/oidc/ldap/client_codec.ts";
import type { Filter } from "../../../src/oidc/ldap/filter.ts";
import { decode_paged_value, decode_request, encode_paged_value, encode_response, MAX_INT, pdu_length } from "../../../src/oidc/ldap/messages.ts";
import type { Control, Request, RequestMessage, Response, ResponseMessage, WriteKind } from "../../../src/oidc/ldap/protocol.ts";

const text = fc.string({ unit: "grapheme", maxLength: 24 });
const name = fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,15}$/);
const oid = fc.array(fc.integer({ min: 0, max: 99_999 }), { minLength: 2, maxLength: 7 }).map((parts) => parts.join("."));
const bytes = fc.uint8Array({ maxLength: 40 });
const id = fc.integer({ min: 1, max: MAX_INT });

const filter: fc.Arbitrary<Filter> = fc.letrec<{ filter: Filter }>((tie) => ({
  filter: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.record({ type: fc.constantFrom("equal", "greater_or_equal", "less_or_equal", "approx"), attribute: name, value: text }) as fc.Arbitrary<Filter>,
    fc.record({ type: fc.constant("present"), attribute: name }) as fc.Arbitrary<Filter>,
    fc
      .record({ attribute: name, initial: fc.option(text, { nil: null }), any: fc.array(text, { maxLength: 3 }), final: fc.option(text, { nil: null }) })
      .filter((s) => s.initial !== null || s.any.length > 0 || s.final !== null)
      .map((s) => ({ type: "substrings", ...s }) as Filter),
    fc
      .record({ rule: fc.option(oid, { nil: null }), attribute: fc.option(name, { nil: null }), value: text, dn_attributes: fc.boolean() })
      .filter((e) => e.rule !== null || e.attribute !== null)
      .map((e) => ({ type: "extensible", ...e }) as Filter),
    fc.record({ type: fc.constantFrom("and", "or"), filters: fc.array(tie("filter"), { maxLength: 3 }) }) as fc.Arbitrary<Filter>,
    fc.record({ type: fc.constant("not"), filter: tie("filter") }) as fc.Arbitrary<Filter>,
  ),
})).filter;

const control: fc.Arbitrary<Control> = fc.record({ oid, critical: fc.boolean(), value: fc.option(bytes, { nil: null }) });
const write_kind = fc.constantFrom<WriteKind>("modify", "add", "delete", "modify_dn");

const request: fc.Arbitrary<Request> = fc.oneof(
  fc.record({
    op: fc.constant("bind" as const),
    version: fc.integer({ min: 1, max: 127 }),
    name: text,
    auth: fc.oneof(
      fc.record({ kind: fc.constant("simple" as const), password: text }),
      fc.record({ kind: fc.constant("sasl" as const), mechanism: name, credentials: fc.option(bytes, { nil: null }) }),
    ),
  }),
  fc.constant({ op: "unbind" as const }),
  fc.record({
    op: fc.constant("search" as const),
    base: text,
    scope: fc.constantFrom(0 as const, 1 as const, 2 as const),
    deref: fc.integer({ min: 0, max: 3 }),
    size_limit: fc.integer({ min: 0, max: MAX_INT }),
    time_limit: fc.integer({ min: 0, max: MAX_INT }),
    types_only: fc.boolean(),
    filter,
    attributes: fc.array(fc.oneof(name, fc.constantFrom("*", "+", "1.1")), { maxLength: 5 }),
  }),
  fc.record({ op: fc.constant("compare" as const), entry: text, attribute: name, value: text }),
  fc.record({ op: fc.constant("abandon" as const), id: fc.integer({ min: 0, max: MAX_INT }) }),
  fc.record({ op: fc.constant("extended" as const), oid, value: fc.option(bytes, { nil: null }) }),
  fc.record({ op: fc.constant("write" as const), kind: write_kind, content: bytes }),
);

const ldap_result = fc.record({ code: fc.integer({ min: 0, max: 127 }), matched_dn: text, message: text });
const response: fc.Arbitrary<Response> = fc.oneof(
  fc.record({ op: fc.constantFrom("bind" as const, "search_done" as const, "compare" as const), result: ldap_result }),
  fc.record({ op: fc.constant("search_entry" as const), dn: text, attributes: fc.array(fc.record({ type: name, values: fc.array(text, { maxLength: 4 }) }), { maxLength: 5 }) }),
  fc.record({ op: fc.constant("search_reference" as const), uris: fc.array(text, { minLength: 1, maxLength: 3 }) }),
  fc.record({ op: fc.constant("extended" as const), result: ldap_result, name: fc.option(oid, { nil: null }), value: fc.option(bytes, { nil: null }) }),
  fc.record({ op: fc.constant("write" as const), kind: write_kind, result: ldap_result }),
);

const request_message: fc.Arbitrary<RequestMessage> = fc.record({ id, request, controls: fc.array(control, { maxLength: 3 }) });
const response_message: fc.Arbitrary<ResponseMessage> = fc.record({ id: fc.integer({ min: 0, max: MAX_INT }), response, controls: fc.array(control, { maxLength: 2 }) });

/** Raises only BerError, or decodes. */
function decodes_or_refuses(pdu: Uint8Array): void {
  try {
    decode_request(pdu);
  } catch (error) {
    if (!(error instanceof BerError)) throw error;
  }
}

describe("round trips", () => {
  test("every request decodes to what was encoded", () => {
    fc.assert(
      fc.property(request_message, (message) => {
        const pdu = encode_request(message);
        expect(pdu_length(pdu)).toBe(pdu.length);
        expect(decode_request(pdu)).toEqual(message);
      }),
      { numRuns: 500 },
    );
  });

  test("every response decodes to what was encoded", () => {
    fc.assert(
      fc.property(response_message, (message) => {
        expect(decode_response(encode_response(message))).toEqual(message);
      }),
      { numRuns: 500 },
    );
  });

  test("the paged results control's value (RFC 2696)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: MAX_INT }), bytes, (size, cookie) => {
        expect(decode_paged_value(encode_paged_value(size, cookie))).toEqual({ size, cookie });
      }),
    );
  });
});

describe("streams and garbage", () => {
  test("any prefix of a PDU is measured as incomplete, and the whole one exactly", () => {
    fc.assert(
      fc.property(request_message, (message) => {
        const pdu = encode_request(message);
        for (let cut = 0; cut < pdu.length; cut++) {
          const measured = pdu_length(pdu.subarray(0, cut));
          expect(measured === null || measured === pdu.length).toBe(true);
        }
      }),
      { numRuns: 100 },
    );
  });

  test("random bytes decode or raise a BerError, nothing else", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (junk) => {
        decodes_or_refuses(junk);
        try {
          pdu_length(junk);
        } catch (error) {
          if (!(error instanceof BerError)) throw error;
        }
      }),
      { numRuns: 2000 },
    );
  });

  test("a valid PDU with bytes changed, cut or added decodes or raises a BerError", () => {
    fc.assert(
      fc.property(request_message, fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 4 }), fc.nat(), (message, edits, cut) => {
        const pdu = encode_request(message);
        const changed = Uint8Array.from(pdu);
        for (const [at, value] of edits) changed[at % changed.length] = value;
        decodes_or_refuses(changed);
        decodes_or_refuses(pdu.subarray(0, cut % pdu.length));
        decodes_or_refuses(Uint8Array.from([...pdu, 0]));
      }),
      { numRuns: 1000 },
    );
  });
});

/** A search request whose filter is `f`, as a PDU. */
const search_with = (f: Uint8Array) =>
  sequence(TAG.sequence, [
    integer(1),
    sequence(0x63, [
      octets("dc=example,dc=com"),
      integer(2, TAG.enumerated),
      integer(0, TAG.enumerated),
      integer(0),
      integer(0),
      tlv(TAG.boolean, Uint8Array.of(0)),
      f,
      sequence(TAG.sequence, []),
    ]),
  ]);

describe("abuse cases, refused by their limits", () => {
  test("huge length prefix: 4 GiB announced in 6 bytes is refused before any body arrives", () => {
    expect(() => pdu_length(Uint8Array.of(0x30, 0x84, 0xff, 0xff, 0xff, 0xff))).toThrow(/over the limit/);
    expect(() => pdu_length(Uint8Array.of(0x30, 0x83, 0x10, 0x00, 0x01))).toThrow(BerError);
    // A length of more than four bytes, and the indefinite form (RFC 4511 §5.1).
    expect(() => pdu_length(Uint8Array.of(0x30, 0x85, 1, 0, 0, 0, 0))).toThrow(/too long/);
    expect(() => pdu_length(Uint8Array.of(0x30, 0x80))).toThrow(/indefinite/);
    // Just under the limit is only measured (the listener then waits for the body).
    const at_limit = LIMITS.max_pdu_bytes - 6;
    expect(pdu_length(Uint8Array.of(0x30, 0x84, (at_limit >>> 24) & 255, (at_limit >>> 16) & 255, (at_limit >>> 8) & 255, at_limit & 255))).toBe(LIMITS.max_pdu_bytes);
  });

  test("not an LDAPMessage at all: refused from its first byte", () => {
    expect(() => pdu_length(new TextEncoder().encode("GET / HTTP/1.1\r\n"))).toThrow(/SEQUENCE/);
    expect(() => pdu_length(Uint8Array.of(0x1f, 0x81, 0x00))).toThrow(/multi-byte/);
  });

  test("deep filter nesting: a thousand nested nots are refused at the first level past the limit", () => {
    let f = octets("objectClass", 0x87);
    for (let i = 0; i < 1000; i++) f = sequence(0xa2, [f]);
    expect(() => decode_request(search_with(f))).toThrow(/nested deeper than 24/);
    let ok = octets("objectClass", 0x87);
    for (let i = 0; i < LIMITS.max_filter_depth; i++) ok = sequence(0xa2, [ok]);
    expect(decode_request(search_with(ok)).request.op).toBe("search");
  });

  test("a filter of thousands of items is refused", () => {
    const items = Array.from({ length: 600 }, () => octets("cn", 0x87));
    expect(() => decode_request(search_with(sequence(0xa1, items)))).toThrow(/more than 512 items/);
  });

  test("a message ID of 0 (reserved for notices), a 9-byte integer, trailing bytes: each a BerError", () => {
    const bind = (id: Uint8Array) => sequence(TAG.sequence, [id, sequence(0x60, [integer(3), octets(""), octets("", 0x80)])]);
    expect(() => decode_request(bind(integer(0)))).toThrow(/messageID 0/);
    expect(() => decode_request(bind(tlv(TAG.integer, new Uint8Array(9).fill(1))))).toThrow(/integer of 9 bytes/);
    expect(decode_request(bind(integer(7))).id).toBe(7);
    expect(() => decode_request(Uint8Array.from([...bind(integer(7)), 0x05, 0x00]))).toThrow(/trailing/);
  });

  test("a bind DN that is not UTF-8 is a protocol error; a password that is not cannot match", () => {
    const bind = (name: Uint8Array, password: Uint8Array) => sequence(TAG.sequence, [integer(1), sequence(0x60, [integer(3), octets(name), octets(password, 0x80)])]);
    expect(() => decode_request(bind(Uint8Array.of(0xc3, 0x28), new Uint8Array(0)))).toThrow(/not UTF-8/);
    const decoded = decode_request(bind(new TextEncoder().encode("uid=a"), Uint8Array.of(0xff, 0xfe)));
    expect(decoded.request).toMatchObject({ op: "bind", auth: { kind: "simple", password: "\ufffd\ufffd" } });
  });
});
