/**
 * Property tests of the request parsers (src/fw/body.ts): query strings and form bodies
 * (WHATWG URL Standard §5.1, application/x-www-form-urlencoded), and JSON bodies (RFC 8259).
 * Whatever the input, a parser returns a null-prototype record of strings and string arrays or
 * raises one of the framework's typed errors (400, 413, 415) — never anything else.
 */
import { describe, expect, test } from "../helpers/test_api.ts";
import fc from "fast-check";
import { parse_pairs, read_body } from "../../src/fw/body.ts";
import { HttpError } from "../../src/fw/errors.ts";
import { rejection } from "../helpers/settle.ts";

const RUNS = 3000;

/** Strings with the characters that matter to the parser: separators, %, +, non-ASCII, controls. */
const tricky = fc.string({ unit: fc.constantFrom("a", "b", "=", "&", "%", "+", "2", "F", "C", "0", "é", "\u0000", "\uD83D", "\uDE00", " ", ";", "?", "__proto__") });

function is_input(value: unknown): boolean {
  if (typeof value !== "object" || value === null || Object.getPrototypeOf(value) !== null) return false;
  return Object.values(value).every((v) => typeof v === "string" || (Array.isArray(v) && v.length >= 2 && v.every((x) => typeof x === "string")));
}

describe("parse_pairs (query strings and forms)", () => {
  test("any string parses to a null-prototype record of strings and arrays, or a typed 400", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: "binary" }), tricky), (search) => {
        try {
          expect(is_input(parse_pairs(search, 100))).toBe(true);
        } catch (error) {
          expect(error).toBeInstanceOf(HttpError);
          expect((error as HttpError).status).toBe(400);
        }
      }),
      { numRuns: RUNS },
    );
  });

  test("the fast path and URLSearchParams give the same pieces", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), tricky), (search) => {
        const expected = new Map<string, string[]>();
        for (const [k, v] of new URLSearchParams(search)) expected.set(k, [...(expected.get(k) ?? []), v]);
        const got = parse_pairs(search);
        expect(Object.keys(got).sort()).toEqual([...expected.keys()].sort());
        for (const [k, v] of expected) expect(got[k]).toEqual(v.length === 1 ? v[0]! : v);
      }),
      { numRuns: RUNS },
    );
  });

  test("encoded maps round-trip: a repeated key becomes an array, never a silently kept value", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.string({ minLength: 1 }), fc.string()), { maxLength: 30 }), (pairs) => {
        const parsed = parse_pairs(new URLSearchParams(pairs).toString());
        const seen = new Map<string, string[]>();
        for (const [k, v] of pairs) seen.set(k, [...(seen.get(k) ?? []), v]);
        for (const [k, values] of seen) expect(parsed[k]).toEqual(values.length === 1 ? values[0]! : values);
      }),
      { numRuns: RUNS },
    );
  });

  test("more than the limit of parameters is a 400, at the limit it parses", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 200 }), fc.boolean(), (count, encoded) => {
        const search = Array.from({ length: count }, (_, i) => (encoded ? `k%20${i}=v` : `k${i}=v`)).join("&");
        if (count <= 100) expect(Object.keys(parse_pairs(search, 100)).length).toBe(count);
        else expect(() => parse_pairs(search, 100)).toThrow("More than 100 parameters");
      }),
      { numRuns: 500 },
    );
  });
});

function body_request(bytes: Uint8Array<ArrayBuffer> | string, content_type: string | null): Request {
  const headers: Record<string, string> = content_type === null ? {} : { "content-type": content_type };
  return new Request("http://fw.test/", { method: "POST", headers, body: bytes });
}

describe("read_body", () => {
  const content_types = fc.constantFrom(
    null,
    "application/json",
    "application/json; charset=utf-8",
    "application/jwt+json",
    "application/x-www-form-urlencoded",
    "APPLICATION/X-WWW-FORM-URLENCODED;charset=UTF-8",
    "text/plain",
    "multipart/form-data; boundary=x",
    "application/xml",
    "",
    ";;;",
  );

  test("any bytes under any content type: a record, nothing, or a typed 400/413/415", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.uint8Array({ maxLength: 300 }).map((b) => new Uint8Array(b)),
          fc.string(),
          fc.json(),
        ),
        content_types,
        async (body, type) => {
          try {
            const parsed = await read_body(body_request(body, type), 256, 100);
            expect(parsed === undefined || (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed))).toBe(true);
          } catch (error) {
            expect(error).toBeInstanceOf(HttpError);
            expect([400, 413, 415]).toContain((error as HttpError).status);
          }
        },
      ),
      { numRuns: RUNS },
    );
  });

  test("JSON: an object comes back as sent; any other JSON value is a 400", async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (value) => {
        const request = body_request(JSON.stringify(value), "application/json");
        if (typeof value === "object" && value !== null && !Array.isArray(value)) {
          expect(await read_body(request, 1 << 20)).toEqual(JSON.parse(JSON.stringify(value)));
        } else {
          expect(await rejection(read_body(request, 1 << 20))).toMatchObject({ status: 400 });
        }
      }),
      { numRuns: RUNS },
    );
  });

  test("JSON bombs within the size limit: deep nesting and huge arrays parse or answer 400, never crash", async () => {
    for (const depth of [1_000, 10_000, 100_000]) {
      const deep = `{"a":${"[".repeat(depth)}${"]".repeat(depth)}}`;
      try {
        await read_body(body_request(deep, "application/json"), 1 << 20);
      } catch (error) {
        expect(error).toBeInstanceOf(HttpError);
        expect((error as HttpError).status).toBe(400);
      }
    }
    const wide = `{"a":[${Array.from({ length: 200_000 }, () => "0").join(",")}]}`;
    expect(((await read_body(body_request(wide, "application/json"), 1 << 20)) as { a: unknown[] }).a.length).toBe(200_000);
  });

  test("invalid UTF-8 (overlong %C0%AF sent raw, lone surrogates, 0xFF) is a 400, in JSON and in forms", async () => {
    for (const bytes of [[0xc0, 0xaf], [0xff], [0xed, 0xa0, 0x80], [0xe0, 0x80, 0xaf]]) {
      for (const type of ["application/json", "application/x-www-form-urlencoded"]) {
        const body = new Uint8Array([0x61, 0x3d, ...bytes]);
        expect(await rejection(read_body(body_request(body, type), 1024))).toMatchObject({ status: 400 });
      }
    }
  });
});
