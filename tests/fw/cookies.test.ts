/**
 * The portable cookie parser and serialiser (src/fw/runtime/cookies_portable.ts, used on Deno)
 * answer as Bun's CookieMap and Cookie do (cookies_bun.ts): the same inputs through both, from
 * generated headers and options, and the quirks the generators might miss, one by one. On Deno,
 * where Bun's are not there to compare with, the quirks are checked against the portable ones alone.
 */
import { describe, expect, RUNTIME, test } from "../helpers/test_api.ts";
import fc from "fast-check";
import type { CookieOptions } from "../../src/fw/cookies.ts";
import * as bun from "../../src/fw/runtime/cookies_bun.ts";
import * as portable from "../../src/fw/runtime/cookies_portable.ts";

const TOKEN = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.!#$&'*+^`|~";
const name = fc.string({ unit: fc.constantFrom(...TOKEN), minLength: 1, maxLength: 6 });
/** A value as a browser may send it: plain characters, valid UTF-8 escapes, broken escapes, padding. */
const value = fc
  .array(
    fc.oneof(
      fc.string({ unit: fc.constantFrom(..."abcXYZ019 =\"',/\\()<>@:?[]{}é✓\t"), maxLength: 4 }),
      fc.string({ unit: "grapheme", maxLength: 3 }).map((text) => encodeURIComponent(text)),
      fc.integer({ min: 0, max: 0x7f }).map((byte) => `%${byte.toString(16).padStart(2, "0")}`),
      fc.constantFrom("%", "%4", "%ZZ", "%%41", "%2x", "%e2%82%ac", "%F0%9F%98%80"),
    ),
    { maxLength: 5 },
  )
  .map((parts) => parts.join(""));
const pair = fc.oneof(
  fc.tuple(name, value).map(([n, v]) => `${n}=${v}`),
  fc.tuple(fc.constantFrom(" ", "\t", ""), name, fc.constantFrom(" ", ""), value).map(([pad, n, space, v]) => `${pad}${n}${space}=${space}${v}${pad}`),
  fc.constantFrom("", "=x", "novalue", " ; "),
);

describe("reading a Cookie header", () => {
  test.skipIf(RUNTIME !== "bun")("every name answers the same value on both (generated headers; on Bun, which has the other)", () => {
    fc.assert(
      fc.property(fc.array(pair, { maxLength: 8 }), name, (pairs, absent) => {
        const header = pairs.join(";");
        const names = [...pairs.map((p) => p.split("=")[0]!.trim()), absent, ""];
        const a = bun.read_cookies(header);
        const b = portable.read_cookies(header);
        for (const n of names) expect(b.get(n)).toBe(a.get(n));
      }),
      { numRuns: 2000 },
    );
  });

  test.each([
    ["a=1; a=2", "a", "1"],
    [" a = 1 ;b=2", "a", "1"],
    ['a="q v"', "a", '"q v"'],
    ["a=%41%20b", "a", "A b"],
    ["a=x%ZZy", "a", "x\uFFFDy"],
    ["a=%", "a", "\uFFFD"],
    ["a=x%4", "a", "x\uFFFD4"],
    ["a=%%41", "a", "\uFFFD1"],
    ["=x; b=2", "b", "2"],
    ["a=1,b=2", "a", "1,b=2"],
    ["%61=1", "%61", "1"],
    ["__proto__=x", "__proto__", "x"],
    ["a=\t1\t", "a", "1"],
  ])("%j: %s is %j", (header, key, expected) => {
    if (RUNTIME === "bun") expect(bun.read_cookies(header).get(key)).toBe(expected);
    expect(portable.read_cookies(header).get(key)).toBe(expected);
  });

  test("no header, no cookies; an absent name is null", () => {
    expect(portable.read_cookies(null).get("a")).toBeNull();
    expect(portable.read_cookies("a=1").get("b")).toBeNull();
    expect(portable.read_cookies("__proto__=1").get("constructor")).toBeNull();
  });
});

/** The outcome of serialising: the header value, or the error's message. */
function outcome(serialize: typeof bun.serialize_cookie, n: string, v: string, options: CookieOptions): string {
  try {
    return serialize(n, v, options);
  } catch (error) {
    return `throws ${(error as Error).message}`;
  }
}

const options = fc.record(
  {
    path: fc.string({ unit: fc.constantFrom(..."/abz09-._~%= ,é;<\t"), maxLength: 6 }),
    domain: fc.string({ unit: fc.constantFrom(..."abz09.-A_ "), maxLength: 8 }),
    httpOnly: fc.boolean(),
    secure: fc.boolean(),
    sameSite: fc.constantFrom("strict", "lax", "none") as fc.Arbitrary<CookieOptions["sameSite"]>,
    maxAge: fc.oneof(fc.integer({ min: -100, max: 1e9 }), fc.constant(0), fc.constant(Number.NaN), fc.double({ min: -10, max: 10, noNaN: true })),
    expires: fc.oneof(
      fc.date({ min: new Date(Date.UTC(1970, 0, 1)), max: new Date(Date.UTC(9999, 11, 31)), noInvalidDate: true }),
      fc.integer({ min: 0, max: 253402300799 }),
      // Strings: HTTP dates, and what Bun's parser refuses (ISO 8601, bare numbers, the epoch).
      fc.constantFrom("Wed, 21 Oct 2015 07:28:00 GMT", "Sun, 06 Nov 1994 08:49:37 +0200", "Jan 2 2030", "2030-01-02", "2030", "Thu, 01 Jan 1970 00:00:00 GMT", "garbage", ""),
    ),
  },
  { requiredKeys: [] },
);

describe("serialising a Set-Cookie", () => {
  test.skipIf(RUNTIME !== "bun")("the same header value, or the same refusal, on both (generated names, values, options; on Bun, which has the other)", () => {
    fc.assert(
      fc.property(
        fc.oneof(name, fc.string({ maxLength: 4 })),
        fc.oneof(fc.string({ maxLength: 12 }), fc.string({ unit: "grapheme", maxLength: 6 }), fc.string({ unit: "binary", maxLength: 6 })),
        options,
        (n, v, o) => {
          expect(outcome(portable.serialize_cookie, n, v, o)).toBe(outcome(bun.serialize_cookie, n, v, o));
        },
      ),
      { numRuns: 3000 },
    );
  });

  test("the cookies the provider sets read back as they were", () => {
    const header = portable.serialize_cookie("sid", "a-b_c.9~", { path: "/", httpOnly: true, secure: true, sameSite: "lax", maxAge: 3600 });
    expect(header).toBe("sid=a-b_c.9~; Path=/; Max-Age=3600; Secure; HttpOnly; SameSite=Lax");
    expect(portable.read_cookies(header.split(";")[0]!).get("sid")).toBe("a-b_c.9~");
  });
});
