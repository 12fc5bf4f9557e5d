import { expect, test } from "../helpers/test_api.ts";
import { split_scope } from "../../src/oidc/claims/scopes.ts";

test("split_scope: distinct values in request order, empty values dropped", () => {
  expect(split_scope("openid profile email")).toEqual(["openid", "profile", "email"]);
  expect(split_scope("  openid  profile openid email profile ")).toEqual(["openid", "profile", "email"]);
  expect(split_scope("")).toEqual([]);
  expect(split_scope(" ")).toEqual([]);
});

test("split_scope: long lists (a Set inside) give the same answer", () => {
  const values = Array.from({ length: 40 }, (_, i) => `s${i % 25}`);
  expect(split_scope(values.join(" "))).toEqual(Array.from({ length: 25 }, (_, i) => `s${i}`));
});
