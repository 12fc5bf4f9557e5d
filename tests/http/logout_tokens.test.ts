/**
 * What a logout does to the tokens of the session (logout/end_session.ts): access tokens and
 * plain refresh tokens are revoked; refresh tokens granted offline_access survive, because they
 * exist to be used while the user is not signed in (OIDC Core §11). A refreshed ID Token keeps
 * the sid of the session it came from.
 */
import { afterAll, beforeAll, expect, test } from "../helpers/test_api.ts";
import * as client from "openid-client";
import { start_provider, type TestProvider } from "../helpers/provider.ts";
import { sha256 } from "../../src/oidc/crypto/secrets.ts";
import { end_session_url, make_rp, sign_in, silent_authorize, type Rp } from "./logout_helpers.ts";

let t: TestProvider;
let rp: Rp;
beforeAll(async () => {
  t = await start_provider();
  rp = await make_rp(t, { grant_types: ["authorization_code", "refresh_token"] });
});
afterAll(() => t.stop());

test("the session's tokens are revoked in the store, except offline_access refresh tokens", async () => {
  const { id_token, browser } = await sign_in(t, rp);
  const session_id_hash = sha256(browser.cookies.get("idp_session")!);
  const token = (kind: "access" | "refresh", scope: string) =>
    t.store.insert_token({
      token_hash: sha256(crypto.randomUUID()),
      kind,
      client_id: rp.client_id,
      user_id: t.user.id,
      scope,
      grant_id: "g",
      session_id_hash,
      expires_at: t.clock.now() + 3600,
    });
  const [access, online, offline] = [await token("access", "openid offline_access"), await token("refresh", "openid"), await token("refresh", "openid offline_access")];
  await browser.get(end_session_url(rp, { id_token_hint: id_token }));
  for (const revoked of [access, online]) expect((await t.store.get_token(revoked.token_hash))!.revoked_at).not.toBeNull();
  expect((await t.store.get_token(offline.token_hash))!.revoked_at).toBeNull();
});

test("an offline_access refresh token still works after logout; the access token does not", async () => {
  const signed_in = await sign_in(t, rp, undefined, "alice", "openid offline_access");
  expect(typeof signed_in.refresh_token).toBe("string");
  const response = await signed_in.browser.get(end_session_url(rp, { id_token_hint: signed_in.id_token }));
  expect(response.status).toBe(200);
  expect((await silent_authorize(rp, signed_in.browser)).searchParams.get("error")).toBe("login_required");
  expect((await fetch(`${t.issuer}/userinfo`, { headers: { authorization: `Bearer ${signed_in.access_token}` } })).status).toBe(401);

  const refreshed = await client.refreshTokenGrant(rp.config, signed_in.refresh_token!);
  expect(refreshed.claims()?.sid).toBe(signed_in.claims.sid);
  expect((await fetch(`${t.issuer}/userinfo`, { headers: { authorization: `Bearer ${refreshed.access_token}` } })).status).toBe(200);
});
