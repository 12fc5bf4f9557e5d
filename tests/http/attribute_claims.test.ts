/**
 * Custom attributes as claims (oidc/attributes/claims.ts), with openid-client building the
 * requests and checking the tokens: released in the ID Token and at /userinfo under their scope
 * (an operator's own scope is grantable and advertised in discovery), under their claim name,
 * by the claims parameter with the user's consent, and never without the scope or the request.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import * as client from "openid-client";
import { Browser } from "../helpers/browser.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";
import { add_attribute } from "../../src/oidc/attributes/definitions.ts";
import { set_user_attributes } from "../../src/oidc/attributes/values.ts";
import { full_flow, relying_party, start } from "./authorize_helpers.ts";

let t: TestProvider;
beforeAll(async () => {
  // Discovery's native copy follows the definitions within one poll (app/attribute_watch.ts).
  t = await start_provider({ config: { keys_poll_seconds: 1 } });
  const now = Math.floor(Date.now() / 1000);
  await add_attribute(t.store, { name: "department", type: "string" }, now);
  await add_attribute(t.store, { name: "teams", type: "string[]", scope: "org" }, now);
  await add_attribute(t.store, { name: "employeeNumber", type: "number", scope: "org", claim: "employee_number" }, now);
  await add_attribute(t.store, { name: "contractor", type: "boolean", scope: "hr" }, now);
  await add_attribute(t.store, { name: "badge", type: "string", scope: "hr" }, now);
  await set_user_attributes(t.store, t.user.id, { department: "Sales", teams: ["red", "blue"], employeeNumber: 4711, contractor: false }, now);
});
afterAll(() => t.stop());

async function fresh_rp(metadata: Record<string, unknown> = {}): Promise<client.Configuration> {
  const { client: registered, secret } = await t.add_client({ client_name: "Attributes App", ...metadata });
  return relying_party(t, registered.client_id, secret!);
}

describe("attribute claims", () => {
  test("released in the ID Token and at /userinfo under their scope and claim name; not without it", async () => {
    const rp = await fresh_rp();
    const flow = await full_flow(rp, new Browser(), { scope: "openid profile org" });
    expect(flow.claims).toMatchObject({ department: "Sales", teams: ["red", "blue"], employee_number: 4711 });
    expect(flow.claims.employeeNumber).toBeUndefined();
    expect(flow.claims.contractor).toBeUndefined();
    const info = await client.fetchUserInfo(rp, flow.tokens.access_token, flow.claims.sub);
    expect(info).toMatchObject({ department: "Sales", teams: ["red", "blue"], employee_number: 4711 });
    expect(info.contractor).toBeUndefined();
    // The scope the token was granted names the operator's scope (RFC 6749 §5.1).
    expect(flow.tokens.scope?.split(" ")).toContain("org");

    const plain = await full_flow(await fresh_rp(), new Browser(), { scope: "openid" });
    expect(plain.claims.department).toBeUndefined();
    expect(plain.claims.teams).toBeUndefined();
  });

  test("a false boolean is released; an attribute the user has no value for is absent", async () => {
    const rp = await fresh_rp();
    const flow = await full_flow(rp, new Browser(), { scope: "openid hr" });
    expect(flow.claims.contractor).toBe(false);
    expect("badge" in flow.claims).toBe(false);
  });

  test("the claims parameter releases an attribute claim outside its scope, after the consent page lists it", async () => {
    const rp = await fresh_rp();
    const claims = JSON.stringify({ id_token: { teams: { essential: true } }, userinfo: { department: null } });
    const browser = new Browser();
    const flow = await full_flow(rp, browser, { scope: "openid", claims });
    expect(flow.pages).toEqual(["login", "consent"]);
    expect(flow.claims.teams).toEqual(["red", "blue"]);
    expect(flow.claims.department).toBeUndefined();
    const info = await client.fetchUserInfo(rp, flow.tokens.access_token, flow.claims.sub);
    expect(info).toEqual({ sub: t.user.id, department: "Sales" });
    // The consent page names the claim as a detail asked for.
    const again = await start(rp, { scope: "openid", claims, prompt: "consent" });
    const redirect = await browser.get(again.url.href);
    const consent = await (await browser.get(redirect.headers.get("location")!)).text();
    expect(consent).toContain("teams");
    expect(consent).toContain("(required by the application)");
  });

  test("an unknown scope is still dropped; a client with a scope list may list the operator's scope", async () => {
    const flow = await full_flow(await fresh_rp(), new Browser(), { scope: "openid nothing" });
    expect(flow.tokens.scope?.split(" ")).toEqual(["openid"]);
    const listed = await full_flow(await fresh_rp({ scope: "openid org" }), new Browser(), { scope: "openid org" });
    expect(listed.claims.teams).toEqual(["red", "blue"]);
  });

  test("discovery advertises the attributes' scopes and claim names, within one poll of a change", async () => {
    type Metadata = { scopes_supported: string[]; claims_supported: string[] };
    const read = async () => (await (await fetch(new URL("/.well-known/openid-configuration", t.url))).json()) as Metadata;
    let document = await read();
    for (let i = 0; i < 50 && !document.scopes_supported.includes("org"); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      document = await read();
    }
    expect(document.scopes_supported).toEqual(expect.arrayContaining(["openid", "profile", "org", "hr"]));
    expect(document.claims_supported).toEqual(expect.arrayContaining(["department", "teams", "employee_number", "contractor", "badge", "email"]));
    expect(document.claims_supported).not.toContain("employeeNumber");
  });
});
