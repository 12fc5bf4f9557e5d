import { describe, expect, test } from "../helpers/test_api.ts";
import { redirect_uri_problem, redirect_uri_problems, web_url_problem } from "../../src/oidc/clients/redirect_uris.ts";

describe("redirect URI rules", () => {
  test("https is accepted for web and native clients", () => {
    expect(redirect_uri_problem("https://app.example.com/callback")).toBeNull();
    expect(redirect_uri_problem("https://app.example.com/callback?x=1", "native")).toBeNull();
  });

  test("http only on loopback hosts", () => {
    for (const uri of ["http://localhost:8080/cb", "http://127.0.0.1/cb", "http://[::1]:3000/cb", "http://LOCALHOST/cb"]) {
      expect(redirect_uri_problem(uri)).toBeNull();
    }
    for (const uri of ["http://app.example.com/cb", "http://localhost.evil.example/cb", "http://127.0.0.1.nip.io/cb", "http://10.0.0.1/cb"]) {
      expect(redirect_uri_problem(uri)).toContain("not loopback");
    }
  });

  test("relative URIs, fragments and credentials are rejected", () => {
    expect(redirect_uri_problem("/callback")).toBe("is not an absolute URI");
    expect(redirect_uri_problem("not a url")).toBe("is not an absolute URI");
    expect(redirect_uri_problem("https://app.example.com/cb#frag")).toContain("fragment");
    expect(redirect_uri_problem("https://app.example.com/cb#")).toContain("fragment");
    // RFC 9700 §4.1.3: compared exactly, so a wildcard is never a pattern.
    expect(redirect_uri_problem("https://*.example.com/cb")).toContain("wildcard");
    expect(redirect_uri_problem("https://app.example.com/*")).toContain("wildcard");
    expect(redirect_uri_problem("https://app.example.com/%2A")).toBeNull();
    expect(redirect_uri_problem("https://user:pw@app.example.com/cb")).toContain("credentials");
  });

  test("custom schemes only for native applications", () => {
    expect(redirect_uri_problem("com.example.app:/callback", "native")).toBeNull();
    expect(redirect_uri_problem("com.example.app:/callback", "web")).toContain("only native applications");
  });

  test("script and local schemes are never accepted", () => {
    for (const uri of ["javascript:alert(1)", "data:text/html,x", "file:///etc/passwd", "vbscript:x"]) {
      expect(redirect_uri_problem(uri, "native")).toContain("forbidden scheme");
    }
  });

  test("redirect_uri_problems lists every bad URI as a sentence", () => {
    const problems = redirect_uri_problems(["https://ok.example/cb", "http://bad.example/cb", "/rel"], "web");
    expect(problems).toHaveLength(2);
    expect(problems[0]).toStartWith('redirect URI "http://bad.example/cb" uses http');
    expect(problems[1]).toBe('redirect URI "/rel" is not an absolute URI');
  });

  test("web_url_problem", () => {
    expect(web_url_problem("https://cdn.example/a.png")).toBeNull();
    expect(web_url_problem("http://cdn.example/a.png")).toBeNull();
    expect(web_url_problem("http://cdn.example/jwks", { https_only: true })).toBe("must be an https URL");
    expect(web_url_problem("ftp://x.example/a")).toBe("must be an http(s) URL");
    expect(web_url_problem("nope")).toBe("is not an absolute URL");
  });
});
