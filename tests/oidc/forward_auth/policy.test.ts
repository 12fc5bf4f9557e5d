/**
 * The forward-auth rules without HTTP: reading the proxied request from each proxy's headers
 * (only its own mode's), the path the rules compare (decoded, dot segments resolved, slashes
 * folded), applications and rules by longest prefix at a segment boundary, the case-folded rule
 * applying too, the rules' text form, and application URLs.
 */
import { describe, expect, test } from "../../helpers/test_api.ts";
import { app_location, format_rule, parse_rule } from "../../../src/oidc/forward_auth/apps.ts";
import { header_value } from "../../../src/oidc/forward_auth/check.ts";
import { application_for, covers, groups_allow, lacks_second_factor, requirement } from "../../../src/oidc/forward_auth/policy.ts";
import { ForwardHeadersError, decoded_path, original_request } from "../../../src/oidc/forward_auth/request.ts";
import type { ProtectedAppRow } from "../../../src/store/types.ts";

const headers = (values: Record<string, string>) => ({ get: (name: string) => values[name.toLowerCase()] ?? null });

function app(fields: Partial<ProtectedAppRow> & Pick<ProtectedAppRow, "name">): ProtectedAppRow {
  return { url: "https://app.example.com", host: "app.example.com", path: "/", allowed_groups: [], require_2fa: false, rules: [], created_at: 0, updated_at: 0, ...fields };
}

describe("the proxied request", () => {
  test("forward mode reads X-Forwarded-*, lower-cases the host and drops the default port", () => {
    const read = original_request(
      "forward",
      headers({ "x-forwarded-proto": "HTTPS", "x-forwarded-host": "App.Example.com:443", "x-forwarded-uri": "/a/b?x=1", "x-forwarded-method": "post" }),
    );
    expect(read).toEqual({ method: "POST", host: "app.example.com", path: "/a/b", uri: "/a/b?x=1" });
    expect(original_request("forward", headers({ "x-forwarded-proto": "http", "x-forwarded-host": "app.example.com:8080" }))).toEqual({
      method: "GET",
      host: "app.example.com:8080",
      path: "/",
      uri: "/",
    });
  });

  test("nginx mode reads X-Original-URL only; forward mode never reads it", () => {
    expect(original_request("nginx", headers({ "x-original-url": "https://app.example.com/x?y", "x-forwarded-host": "evil.example" }))).toMatchObject({
      host: "app.example.com",
      uri: "/x?y",
    });
    expect(() => original_request("forward", headers({ "x-original-url": "https://app.example.com/" }))).toThrow("the proxy sent no X-Forwarded-Proto header");
    expect(() => original_request("nginx", headers({ "x-forwarded-proto": "https", "x-forwarded-host": "app.example.com" }))).toThrow("the proxy sent no X-Original-URL header");
  });

  test("headers that describe no request are refused, naming the header", () => {
    const bad: Record<string, string>[] = [
      { "x-forwarded-proto": "https", "x-forwarded-host": "a@b.example" },
      { "x-forwarded-proto": "https", "x-forwarded-host": "a.example, b.example" },
      { "x-forwarded-proto": "https", "x-forwarded-host": "a.example/path" },
      { "x-forwarded-proto": "gopher", "x-forwarded-host": "a.example" },
      { "x-forwarded-proto": "https", "x-forwarded-host": "a.example", "x-forwarded-uri": "relative" },
      { "x-forwarded-proto": "https", "x-forwarded-host": "a.example", "x-forwarded-uri": "/a b" },
      { "x-forwarded-proto": "https", "x-forwarded-host": "a.example", "x-forwarded-uri": "/%E0%A4%A" },
    ];
    for (const values of bad) expect(() => original_request("forward", headers(values))).toThrow(ForwardHeadersError);
    for (const url of ["ftp://a.example/", "https://user@a.example/", "https://a.example:99999999/", "//a.example/"]) {
      expect(() => original_request("nginx", headers({ "x-original-url": url }))).toThrow(ForwardHeadersError);
    }
  });

  test("a leading double slash cannot move the request to another host", () => {
    expect(original_request("forward", headers({ "x-forwarded-proto": "https", "x-forwarded-host": "app.example.com", "x-forwarded-uri": "//evil.example/x" }))).toMatchObject({
      host: "app.example.com",
      path: "/evil.example/x",
    });
  });

  test("the compared path is decoded, without dot segments, backslashes or repeated slashes", () => {
    const cases: [string, string][] = [
      ["/admin", "/admin"],
      ["/public/../admin", "/admin"],
      ["/public/%2e%2e/admin", "/admin"],
      ["/public%2F..%2Fadmin", "/admin"],
      ["/public/..%5Cadmin", "/admin"],
      ["//admin//x", "/admin/x"],
      ["/%61dmin/", "/admin/"],
      ["/./a/./b/", "/a/b/"],
      ["/../../a", "/a"],
      ["/caf%C3%A9", "/café"],
    ];
    for (const [raw, expected] of cases) {
      const path = original_request("forward", headers({ "x-forwarded-proto": "https", "x-forwarded-host": "a.example", "x-forwarded-uri": raw })).path;
      expect({ raw, path }).toEqual({ raw, path: expected });
    }
    expect(decoded_path("/%ff")).toBeNull();
  });
});

describe("applications and rules", () => {
  const wiki = app({
    name: "wiki",
    allowed_groups: ["staff"],
    rules: [
      { prefix: "/admin", groups: ["admins"], require_2fa: true },
      { prefix: "/admin/reports", groups: ["finance"], require_2fa: false },
      { prefix: "/public", groups: [], require_2fa: false },
    ],
  });

  test("a prefix covers a path at a segment boundary", () => {
    expect(covers("/admin", "/admin")).toBe(true);
    expect(covers("/admin", "/admin/")).toBe(true);
    expect(covers("/admin", "/admin/x")).toBe(true);
    expect(covers("/admin", "/administrator")).toBe(false);
    expect(covers("/", "/anything")).toBe(true);
    expect(covers("/Admin", "/admin")).toBe(false);
    expect(covers("/Admin", "/admin", true)).toBe(true);
  });

  test("the application with the longest path on the host", () => {
    const root = app({ name: "root" });
    const grafana = app({ name: "grafana", path: "/grafana" });
    expect(application_for([grafana, root], "/grafana/d/1")?.name).toBe("grafana");
    expect(application_for([grafana, root], "/grafanax")?.name).toBe("root");
    expect(application_for([grafana], "/other")).toBeNull();
  });

  test("the longest rule wins over shorter ones and over the application's groups", () => {
    expect(requirement(wiki, "/docs")).toEqual({ group_lists: [["staff"]], second_factor: false, rules: [] });
    expect(requirement(wiki, "/admin/users")).toEqual({ group_lists: [["admins"]], second_factor: true, rules: ["/admin"] });
    expect(requirement(wiki, "/admin/reports/2024")).toEqual({ group_lists: [["finance"]], second_factor: false, rules: ["/admin/reports"] });
    expect(requirement(wiki, "/public/x")).toEqual({ group_lists: [], second_factor: false, rules: ["/public"] });
    expect(requirement({ ...wiki, require_2fa: true }, "/public/x").second_factor).toBe(true);
  });

  test("a path that only a case-folded rule covers must meet that rule and the exact one", () => {
    // /PUBLIC: exactly, no rule (the app's staff); without case, /public (anyone): staff it is.
    expect(requirement(wiki, "/PUBLIC/x")).toEqual({ group_lists: [["staff"]], second_factor: false, rules: ["/public"] });
    // /ADMIN/reports: exactly none (staff); without case /admin/reports (finance): both.
    expect(requirement(wiki, "/ADMIN/reports").group_lists).toEqual([["staff"], ["finance"]]);
    expect(groups_allow(requirement(wiki, "/ADMIN/reports"), ["staff"])).toBe(false);
    expect(groups_allow(requirement(wiki, "/ADMIN/reports"), ["Staff", "FINANCE"])).toBe(true);
  });

  test("groups compare without case; a second factor is any of ours", () => {
    const needs = requirement(wiki, "/admin");
    expect(groups_allow(needs, ["ADMINS"])).toBe(true);
    expect(groups_allow(needs, ["staff"])).toBe(false);
    expect(lacks_second_factor(needs, ["pwd"])).toBe(true);
    expect(lacks_second_factor(needs, ["pwd", "otp"])).toBe(false);
    expect(lacks_second_factor(needs, ["hwk", "user"])).toBe(false);
    expect(lacks_second_factor(requirement(wiki, "/docs"), ["pwd"])).toBe(false);
  });
});

describe("text forms", () => {
  test("a rule reads back as written", () => {
    for (const text of ["/admin=admins", "/admin=admins,ops+2fa", "/public=*", "/billing=*+2fa", "/a/b-c.d=team:ops,org/x"]) {
      const rule = parse_rule(text);
      expect(typeof rule).toBe("object");
      expect(format_rule(rule as Exclude<typeof rule, string>)).toBe(text);
    }
    for (const text of ["/admin", "=admins", "/admin=", "/admin=a b", "/admin?x=admins", "/admin/=admins", "/a//b=admins", "/a/./b=admins", "/%61=admins", "/admin=admins+mfa"]) {
      expect({ text, parsed: typeof parse_rule(text) }).toEqual({ text, parsed: "string" });
    }
  });

  test("an application URL gives its host (a non-default port kept) and path", () => {
    expect(app_location("https://App.Example.com")).toEqual({ url: "https://app.example.com", host: "app.example.com", path: "/" });
    expect(app_location("https://app.example.com:443/grafana/")).toEqual({ url: "https://app.example.com/grafana", host: "app.example.com", path: "/grafana" });
    expect(app_location("http://app.example.com:8080/x")).toEqual({ url: "http://app.example.com:8080/x", host: "app.example.com:8080", path: "/x" });
    for (const bad of ["app.example.com", "ftp://a.example", "https://a.example/?q", "https://a.example/#f", "https://u@a.example", "https://a.example/a%20b"]) {
      expect(typeof app_location(bad)).toBe("string");
    }
  });

  test("header values: no control characters; UTF-8 carried byte for byte", () => {
    expect(header_value("Alice\r\nX-Evil: 1")).toBe("Alice  X-Evil: 1");
    expect(header_value("Zoë")).toBe("Zo\u00c3\u00ab");
    expect(new TextDecoder().decode(Uint8Array.from(header_value("名前"), (c) => c.charCodeAt(0)))).toBe("名前");
  });
});
