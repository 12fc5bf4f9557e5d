/**
 * response_mode=query (RFC 6749 §4.1.2): the response parameters are form-encoded onto the
 * redirect URI. query_url encodes the usual values itself; the result must be what
 * URLSearchParams gives for every value, a client's arbitrary state included.
 */
import { expect, test } from "../helpers/test_api.ts";
import { query_url } from "../../src/oidc/authorize/decision.ts";

function expected(uri: string, params: Record<string, string>): string {
  const hash = uri.indexOf("#");
  const base = hash === -1 ? uri : uri.slice(0, hash);
  return `${base}${base.includes("?") ? "&" : "?"}${new URLSearchParams(params).toString()}`;
}

test("query_url: keeps the redirect URI's query, drops its fragment, encodes like URLSearchParams", () => {
  const values = ["", "abc", "a b", "é", "\ud800", "x!~'()*-._", "http://127.0.0.1:3390", "a+b&c=d#e%f", "😀", "\u0000\u007f", "a\nb"];
  for (const uri of ["https://rp.example.com/cb", "https://rp.example.com/cb?x=1#frag"]) {
    for (const code of values) {
      for (const state of values) {
        const params = { code, state, iss: "https://idp.example.com/tenant" };
        expect(query_url({ client_id: "rp", redirect_uri: uri, response_mode: "query", params })).toBe(expected(uri, params));
      }
    }
  }
});

test("query_url: errors, names that need encoding, and a changing issuer", () => {
  for (const iss of ["https://a.example.com", "https://b.example.com/x y", "https://a.example.com"]) {
    const params = { error: "access_denied", error_description: "the user said 'no' (twice)", "odd name": "v", iss };
    expect(query_url({ client_id: "rp", redirect_uri: "https://rp.example.com/cb", response_mode: "query", params })).toBe(expected("https://rp.example.com/cb", params));
  }
});
