/**
 * parse_basic (RFC 6749 §2.3.1): Basic credentials are the form-urlencoded client_id and secret,
 * base64-encoded. The decoding takes a fast path (atob) for ASCII and must read every header
 * exactly as Buffer's lenient base64 does.
 */
import { expect, test } from "../helpers/test_api.ts";
import { parse_basic } from "../../src/oidc/clients/authentication.ts";

const b64 = (text: string) => Buffer.from(text, "utf8").toString("base64");

test("Basic: plain ASCII id and secret", () => {
  expect(parse_basic(`Basic ${b64("my-app:s3cr3t_-x")}`)).toEqual({ client_id: "my-app", secret: "s3cr3t_-x" });
  expect(parse_basic(`basic   ${b64("a:b")}  `)).toEqual({ client_id: "a", secret: "b" });
});

test("Basic: form-urlencoded values are decoded (%XX and + as a space)", () => {
  expect(parse_basic(`Basic ${b64("my%3Aapp:a+b%2Bc%25")}`)).toEqual({ client_id: "my:app", secret: "a b+c%" });
  expect(parse_basic(`Basic ${b64("app:%E2%82%AC")}`)).toEqual({ client_id: "app", secret: "€" });
});

test("Basic: raw UTF-8 bytes are read as UTF-8", () => {
  expect(parse_basic(`Basic ${b64("clé:mot€")}`)).toEqual({ client_id: "clé", secret: "mot€" });
});

test("Basic: base64 that atob refuses is read as Buffer reads it", () => {
  for (const encoded of ["YTpi", "YTpi=", "YTpiYw", "YTpiYw=", "YTpi==YTpi", "YTp=iYw==", "Y"]) {
    const expected = Buffer.from(encoded, "base64").toString("utf8");
    const colon = expected.indexOf(":");
    const parsed = parse_basic(`Basic ${encoded}`);
    if (colon === -1) expect(parsed).toBe("malformed");
    else expect(parsed).toEqual({ client_id: expected.slice(0, colon), secret: expected.slice(colon + 1) });
  }
});

test("Basic: malformed credentials and other schemes", () => {
  expect(parse_basic(null)).toBeNull();
  expect(parse_basic("Bearer abc")).toBeNull();
  expect(parse_basic("Basic")).toBe("malformed");
  expect(parse_basic("Basic !!!")).toBe("malformed");
  expect(parse_basic(`Basic ${b64("no-colon")}`)).toBe("malformed");
  expect(parse_basic(`Basic ${b64("app:%E2%82")}`)).toBe("malformed");
});
