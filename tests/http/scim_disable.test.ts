/**
 * `active: false` through SCIM ends what the user holds at once (oidc/scim/users.ts through
 * change_user): a real session cookie from the login pages stops working, the refresh token is
 * refused, and introspection calls the access token inactive (RFC 7662 §2.2).
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { sandbox, type Sandbox } from "../cli/helpers.ts";
import { authorization_url, basic, get_code, pkce as make_pkce, redeem, token_request } from "../helpers/flow.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";

let cli: Sandbox;
let op: TestProvider;
let scim_token: string;

beforeAll(async () => {
  cli = sandbox();
  op = await start_provider({ database_url: cli.env.DATABASE_URL! });
  scim_token = (await cli.run(["scim", "tokens", "add", "entra", "--json"])).json<{ token: string }>().token;
});
afterAll(async () => {
  await op?.stop();
  cli?.cleanup();
});

const introspect = async (token: string, client_id: string, secret: string) => {
  const res = await fetch(`${op.url}/introspect`, {
    method: "POST",
    headers: { authorization: basic(client_id, secret), "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
    body: new URLSearchParams({ token }).toString(),
  });
  return (await res.json()) as { active: boolean };
};

describe("SCIM active:false", () => {
  test("ends the session, the refresh token and the access token at once", async () => {
    const { client, secret } = await op.add_client({
      client_name: "Refreshing",
      grant_types: ["authorization_code", "refresh_token"],
      token_endpoint_auth_method: "client_secret_basic",
    });
    const auth = { method: "basic", client_id: client.client_id, secret: secret! } as const;
    const { code, pkce, browser } = await get_code(op, { scope: "openid offline_access", prompt: "consent" }, { client_id: client.client_id });
    const tokens = (await (await redeem(op, code, pkce!.verifier, auth)).json()) as { access_token: string; refresh_token: string };
    expect(typeof tokens.refresh_token).toBe("string");
    expect((await introspect(tokens.access_token, client.client_id, secret!)).active).toBe(true);
    const silent = () => {
      const challenge = make_pkce().challenge;
      return authorization_url(op, { prompt: "none", scope: "openid offline_access", code_challenge: challenge, code_challenge_method: "S256" }, client.client_id);
    };
    // The session signs in silently before.
    const before = await browser.get(silent());
    expect(before.status).toBe(302);
    expect(new URL(before.headers.get("location")!).searchParams.get("code")).not.toBeNull();

    const patched = await fetch(`${op.url}/scim/v2/Users/${op.user.id}`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${scim_token}`, "content-type": "application/scim+json" },
      body: JSON.stringify({ schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], Operations: [{ op: "replace", path: "active", value: false }] }),
    });
    expect(patched.status).toBe(200);
    expect(((await patched.json()) as { active: boolean }).active).toBe(false);

    const after = await browser.get(silent());
    expect(new URL(after.headers.get("location")!).searchParams.get("error")).toBe("login_required");
    const refreshed = await token_request(op, { grant_type: "refresh_token", refresh_token: tokens.refresh_token }, auth);
    expect(refreshed.status).toBe(400);
    expect(((await refreshed.json()) as { error: string }).error).toBe("invalid_grant");
    expect((await introspect(tokens.access_token, client.client_id, secret!)).active).toBe(false);
    const events = await op.store.list_audit_events({ type: "scim", user_id: op.user.id });
    expect(events.find((e) => e.details?.action === "user_disabled")?.details).toMatchObject({ scim_token: "entra", sessions_ended: 1 });
  });
});
