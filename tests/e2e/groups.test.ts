/**
 * Groups in tokens and the per-client access policy, through a real relying-party library
 * (openid-client v6: it validates the ID Token, the iss of error responses, and parses
 * introspection) against a real server. The pages are driven by the fetch Browser.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import * as oidc from "openid-client";
import { Browser, authorize } from "../helpers/browser.ts";
import { REDIRECT_URI, start_provider, type TestProvider } from "../helpers/provider.ts";
import type { ClientMetadata, GroupRow, UserRow } from "../../src/store/types.ts";
import { manage, metadata_of, register, registered } from "../http/register_helpers.ts";

let t: TestProvider;
let bob: UserRow;
const groups: Record<string, GroupRow> = {};

beforeAll(async () => {
  t = await start_provider({ config: { registration: "open" } });
  bob = await t.add_user({ username: "bob" });
  for (const name of ["grafana-admins", "k8s-ops", "Staff", "k8s-dev"]) groups[name] = await t.store.create_group({ name });
  for (const name of ["grafana-admins", "k8s-ops", "Staff"]) await t.store.add_group_member(groups[name]!.id, t.user.id);
  await t.store.add_group_member(groups["k8s-dev"]!.id, bob.id);
});
afterAll(() => t.stop());

type Rp = { config: oidc.Configuration; client_id: string };

async function rp(client_id: string, secret: string): Promise<Rp> {
  const config = await oidc.discovery(new URL(t.issuer), client_id, undefined, oidc.ClientSecretBasic(secret), { execute: [oidc.allowInsecureRequests] });
  return { config, client_id };
}

async function client_with(metadata: ClientMetadata): Promise<Rp> {
  const { client, secret } = await t.add_client({ client_name: "Mapped", token_endpoint_auth_method: "client_secret_basic", ...metadata });
  return rp(client.client_id, secret!);
}

/**
 * One authorization code flow with PKCE, state and nonce: the pages as `username`, then
 * openid-client redeems the callback (or raises its error).
 */
async function sign_in(app: Rp, params: Record<string, string>, options: { username?: string; browser?: Browser } = {}) {
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const url = oidc.buildAuthorizationUrl(app.config, {
    redirect_uri: REDIRECT_URI,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
    state,
    nonce,
    ...params,
  });
  const browser = options.browser ?? new Browser();
  const { callback } = await authorize(browser, url.href, { username: options.username ?? "alice", password: t.password, callback_prefix: REDIRECT_URI });
  const tokens = await oidc.authorizationCodeGrant(app.config, callback, { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce });
  return { tokens, claims: tokens.claims()!, callback, browser };
}

describe("discovery", () => {
  test("advertises the scope groups and the claims groups and roles", async () => {
    const document = (await (await fetch(`${t.url}/.well-known/openid-configuration`)).json()) as { scopes_supported: string[]; claims_supported: string[] };
    expect(document.scopes_supported).toContain("groups");
    expect(document.claims_supported).toEqual(expect.arrayContaining(["groups", "roles"]));
  });
});

describe("groups claim", () => {
  test("scope groups: in the ID Token, at userinfo and in introspection", async () => {
    const app = await rp(t.client.client_id, t.secret);
    const { tokens, claims } = await sign_in(app, { scope: "openid groups" });
    expect(claims.groups).toEqual(["grafana-admins", "k8s-ops", "Staff"]);
    expect(claims).not.toHaveProperty("roles");
    const userinfo = await oidc.fetchUserInfo(app.config, tokens.access_token, claims.sub);
    expect(userinfo.groups).toEqual(["grafana-admins", "k8s-ops", "Staff"]);
    const introspection = await oidc.tokenIntrospection(app.config, tokens.access_token);
    expect(introspection).toMatchObject({ active: true, scope: "openid groups", groups: ["grafana-admins", "k8s-ops", "Staff"] });
  });

  test("without the scope: no groups in the ID Token, userinfo or introspection", async () => {
    const app = await rp(t.client.client_id, t.secret);
    const { tokens, claims } = await sign_in(app, { scope: "openid profile" });
    expect(claims).not.toHaveProperty("groups");
    expect(claims.name).toBe("Alice Liddell");
    const userinfo = await oidc.fetchUserInfo(app.config, tokens.access_token, claims.sub);
    expect(userinfo).not.toHaveProperty("groups");
    const introspection = await oidc.tokenIntrospection(app.config, tokens.access_token);
    expect(introspection.active).toBe(true);
    expect(introspection).not.toHaveProperty("groups");
  });

  test("the claims parameter (OIDC Core §5.5) can ask for groups in the ID Token alone", async () => {
    const app = await rp(t.client.client_id, t.secret);
    const { tokens, claims } = await sign_in(app, { scope: "openid", claims: JSON.stringify({ id_token: { groups: { essential: true } } }) });
    expect(claims.groups).toEqual(["grafana-admins", "k8s-ops", "Staff"]);
    const userinfo = await oidc.fetchUserInfo(app.config, tokens.access_token, claims.sub);
    expect(userinfo).not.toHaveProperty("groups");
  });

  test("a user in no group gets an empty list", async () => {
    const loner = await t.add_user({ username: "loner" });
    const app = await rp(t.client.client_id, t.secret);
    const { claims } = await sign_in(app, { scope: "openid groups" }, { username: loner.username });
    expect(claims.groups).toEqual([]);
  });
});

describe("per-client mapping", () => {
  test("renamed claim, prefix filter with stripping, roles from groups (Kubernetes and Grafana shapes)", async () => {
    const app = await client_with({
      skip_consent: true,
      groups_claim: "k8s_groups",
      groups_prefix: "K8S-",
      groups_prefix_strip: true,
      roles: { "grafana-admins": "Admin", staff: "Viewer", "k8s-dev": "Editor" },
    });
    const { tokens, claims } = await sign_in(app, { scope: "openid groups" });
    expect(claims.k8s_groups).toEqual(["ops"]);
    expect(claims.roles).toEqual(["Admin", "Viewer"]);
    expect(claims).not.toHaveProperty("groups");
    const userinfo = await oidc.fetchUserInfo(app.config, tokens.access_token, claims.sub);
    expect(userinfo).toMatchObject({ k8s_groups: ["ops"], roles: ["Admin", "Viewer"] });
    const introspection = await oidc.tokenIntrospection(app.config, tokens.access_token);
    expect(introspection).toMatchObject({ k8s_groups: ["ops"], roles: ["Admin", "Viewer"] });
  });

  test("a prefix without stripping keeps the names; roles only for mapped groups", async () => {
    const app = await client_with({ skip_consent: true, groups_prefix: "grafana-", roles: { "grafana-admins": "GrafanaAdmin" } });
    const { claims } = await sign_in(app, { scope: "openid groups" });
    expect(claims.groups).toEqual(["grafana-admins"]);
    expect(claims.roles).toEqual(["GrafanaAdmin"]);
    const as_bob = await sign_in(app, { scope: "openid groups" }, { username: "bob" });
    expect(as_bob.claims.groups).toEqual([]);
    expect(as_bob.claims.roles).toEqual([]);
  });

  test("a stored claim name that is a registered claim never overwrites it (defence in depth)", async () => {
    const app = await client_with({ skip_consent: true, groups_claim: "email" });
    const { claims } = await sign_in(app, { scope: "openid email groups" });
    expect(claims.email).toBe("alice@example.com");
    expect(claims.groups).toEqual(["grafana-admins", "k8s-ops", "Staff"]);
  });

  test("dynamic registration cannot set the group settings (RFC 7591 §2: not understood, ignored)", async () => {
    const response = await register(t, {
      redirect_uris: [REDIRECT_URI],
      client_name: "Self-registered",
      groups_claim: "sub",
      groups_prefix: "x",
      roles: { "grafana-admins": "Admin" },
      allowed_groups: ["k8s-dev"],
    });
    expect(response.status).toBe(201);
    const body = (await response.json()) as Record<string, unknown>;
    for (const member of ["groups_claim", "groups_prefix", "roles", "allowed_groups"]) expect(body).not.toHaveProperty(member);
    const stored = await t.store.get_client(body.client_id as string);
    for (const member of ["groups_claim", "groups_prefix", "roles", "allowed_groups"]) expect(stored!.metadata).not.toHaveProperty(member);
  });

  test("a registration update (RFC 7592) neither clears nor changes the operator's group settings", async () => {
    const info = await registered(t, { redirect_uris: [REDIRECT_URI], client_name: "Managed" });
    const client = (await t.store.get_client(info.client_id))!;
    // As `idp clients update --allowed-group grafana-admins --groups-claim team` would store them.
    await t.store.update_client(info.client_id, { metadata: { ...client.metadata, allowed_groups: ["grafana-admins"], groups_claim: "team" } });
    const response = await manage("PUT", info.registration_client_uri, info.registration_access_token, {
      ...metadata_of(info),
      client_id: info.client_id,
      client_name: "Managed, renamed",
      allowed_groups: ["k8s-dev"],
    });
    expect(response.status).toBe(200);
    const after = (await t.store.get_client(info.client_id))!.metadata;
    expect(after).toMatchObject({ client_name: "Managed, renamed", allowed_groups: ["grafana-admins"], groups_claim: "team" });
  });
});

describe("access policy", () => {
  test("a user in none of the allowed groups gets access_denied at the client's redirect URI, prompt=none too", async () => {
    const app = await client_with({ skip_consent: true, allowed_groups: ["grafana-admins"] });
    const browser = new Browser();
    const denied = await rejection(() => sign_in(app, { scope: "openid groups" }, { username: "bob", browser }));
    expect(denied).toBeInstanceOf(oidc.AuthorizationResponseError);
    expect((denied as oidc.AuthorizationResponseError).error).toBe("access_denied");
    expect((denied as oidc.AuthorizationResponseError).error_description).toBe("your account is not in a group allowed to use this application");
    // Signed in now (the sign-in itself worked): a silent request is refused the same way.
    const silent = await rejection(() => sign_in(app, { scope: "openid", prompt: "none" }, { browser }));
    expect((silent as oidc.AuthorizationResponseError).error).toBe("access_denied");
    const events = await t.store.list_audit_events({ type: "access_denied", user_id: bob.id });
    expect(events[0]).toMatchObject({ client_id: app.client_id, outcome: "failure", details: { reason: "groups", stage: "authorize" } });
  });

  test("a member gets tokens; removed from the group, the next refresh is refused and the tokens are revoked", async () => {
    const app = await client_with({ skip_consent: true, grant_types: ["authorization_code", "refresh_token"], allowed_groups: ["k8s-dev", "Grafana-Admins"] });
    const user = await t.add_user({ username: `carol-${Date.now()}` });
    await t.store.add_group_member(groups["grafana-admins"]!.id, user.id);
    const { tokens } = await sign_in(app, { scope: "openid groups offline_access" }, { username: user.username });
    expect(tokens.refresh_token).toBeString();
    const refreshed = await oidc.refreshTokenGrant(app.config, tokens.refresh_token!);
    expect(refreshed.claims()!.groups).toEqual(["grafana-admins"]);

    await t.store.remove_group_member(groups["grafana-admins"]!.id, user.id);
    const refused = await rejection(() => oidc.refreshTokenGrant(app.config, refreshed.refresh_token!));
    expect(refused).toBeInstanceOf(oidc.ResponseBodyError);
    expect((refused as oidc.ResponseBodyError).error).toBe("invalid_grant");
    expect((refused as oidc.ResponseBodyError).error_description).toBe("your account is not in a group allowed to use this application");
    // The whole family is gone: the access token of the last refresh no longer works either.
    expect((await oidc.tokenIntrospection(app.config, refreshed.access_token)).active).toBe(false);
    const events = await t.store.list_audit_events({ type: "access_denied", user_id: user.id });
    expect(events[0]?.details).toMatchObject({ stage: "refresh" });
  });
});

async function rejection(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}
