/**
 * ID Token signatures: every algorithm a client may choose (id_token_signed_response_alg) is
 * verified by openid-client against our JWKS (non-repudiation checks on), and key rotation never
 * breaks a token signed before it: the JWKS fetched after a rotation still verifies it.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from "jose";
import * as client from "openid-client";
import { start_provider, type TestProvider } from "../helpers/provider.ts";
import { jwt_header, rp, sign_in } from "./token_helpers.ts";
import { rejection } from "../helpers/settle.ts";

const ALGS = ["RS256", "PS256", "ES256", "EdDSA"] as const;

let t: TestProvider;
beforeAll(async () => {
  t = await start_provider({ config: { signing_algs: [...ALGS] } });
});
afterAll(() => t.stop());

async function jwks(): Promise<JSONWebKeySet> {
  return (await (await fetch(`${t.url}/.well-known/jwks.json`)).json()) as JSONWebKeySet;
}

/** openid-client for a new client registered for `alg`, checking ID Token signatures. */
async function client_for(alg: string, grant_types = ["authorization_code"]) {
  const { client: row, secret } = await t.add_client({ token_endpoint_auth_method: "client_secret_basic", id_token_signed_response_alg: alg, grant_types });
  const config = await rp(t, row.client_id, client.ClientSecretBasic(secret!), { id_token_signed_response_alg: alg });
  client.enableNonRepudiationChecks(config);
  return { row, config };
}

describe("ID Token algorithms", () => {
  test("discovery lists every configured alg, RS256 first, and the JWKS has a key for each", async () => {
    const config = await rp(t, t.client.client_id, client.ClientSecretBasic(t.secret));
    expect(config.serverMetadata().id_token_signing_alg_values_supported).toEqual([...ALGS]);
    const { keys } = await jwks();
    for (const alg of ALGS) expect(keys.some((key) => key.alg === alg)).toBe(true);
  });

  for (const alg of ALGS) {
    test(`each ID token alg verifies with openid-client: ${alg}`, async () => {
      const { row, config } = await client_for(alg, ["authorization_code", "refresh_token"]);
      const { tokens } = await sign_in(t, config, "openid offline_access");
      const header = jwt_header(tokens.id_token!);
      expect(header.alg).toBe(alg);
      expect((await jwks()).keys.find((key) => key.kid === header.kid)?.alg).toBe(alg);
      expect(tokens.claims()!.aud).toBe(row.client_id);
      // The refreshed ID Token is signed with the same alg and verified the same way.
      const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
      expect(jwt_header(refreshed.id_token!).alg).toBe(alg);
    });
  }

  test("a token signed with another alg than the client's is refused by openid-client", async () => {
    // The client expects ES256; the provider signs RS256 for it (registered default).
    const { client: row, secret } = await t.add_client({ token_endpoint_auth_method: "client_secret_basic" });
    const config = await rp(t, row.client_id, client.ClientSecretBasic(secret!), { id_token_signed_response_alg: "ES256" });
    await rejection(sign_in(t, config, "openid"));
  });
});

describe("key rotation", () => {
  test("tokens signed before rotation verify after it", async () => {
    const before = new Map<string, string>();
    for (const alg of ALGS) {
      const { config } = await client_for(alg);
      before.set(alg, (await sign_in(t, config, "openid")).tokens.id_token!);
    }
    const kids_before = new Map<string, string>(ALGS.map((alg) => [alg, t.provider.keys.active_kid(alg)]));
    await t.provider.keys.rotate();
    for (const alg of ALGS) expect(t.provider.keys.active_kid(alg)).not.toBe(kids_before.get(alg));
    // A second rotation: the first key is retired but still published until its tokens expire.
    await t.provider.keys.rotate();

    const after = createLocalJWKSet(await jwks());
    for (const [alg, id_token] of before) {
      const { payload, protectedHeader } = await jwtVerify(id_token, after, { issuer: t.issuer, algorithms: [alg] });
      expect(protectedHeader.kid).toBe(kids_before.get(alg));
      expect(payload.iss).toBe(t.issuer);
    }
    // New tokens are signed with the new keys and verify with openid-client as well.
    for (const alg of ALGS) {
      const { config } = await client_for(alg);
      const { tokens } = await sign_in(t, config, "openid");
      expect(jwt_header(tokens.id_token!).kid).toBe(t.provider.keys.active_kid(alg));
    }
  });

  test("a retired key leaves the JWKS only after the tokens it signed have expired", async () => {
    const { config } = await client_for("ES256");
    const id_token = (await sign_in(t, config, "openid")).tokens.id_token!;
    const kid = jwt_header(id_token).kid as string;
    await t.provider.keys.rotate("ES256");
    t.clock.advance(t.config.tokens.id_token_ttl - 5);
    await t.provider.keys.refresh();
    expect((await jwks()).keys.some((key) => key.kid === kid)).toBe(true);
    t.clock.advance(3600);
    await t.provider.keys.refresh();
    expect((await jwks()).keys.some((key) => key.kid === kid)).toBe(false);
  });
});
