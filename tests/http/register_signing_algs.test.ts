/**
 * request_object_signing_alg and token_endpoint_auth_signing_alg at POST /register (OIDC
 * Registration §2): the values discovery advertises are accepted and stored, others are
 * invalid_client_metadata. The algs are enforced in oidc/authorize/request_object.ts and oidc/clients/assertion.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";
import { WEB_CLIENT, expect_error, register, registered, type Json } from "./register_helpers.ts";

let t: TestProvider;
beforeAll(async () => {
  t = await start_provider({ config: { registration: "open" } });
});
afterAll(() => t.stop());

const metadata_error = async (extra: Json) => expect_error(await register(t, { ...WEB_CLIENT, ...extra }), "invalid_client_metadata");

describe("request object and client assertion algorithms (OIDC Registration §2)", () => {
  const jwks = { keys: [{ kty: "EC", crv: "P-256", x: "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU", y: "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0" }] };
  const discovery = async () => (await (await fetch(`${t.url}/.well-known/openid-configuration`)).json()) as Record<string, string[]>;

  test("every advertised request_object_signing_alg is accepted and returned", async () => {
    for (const alg of (await discovery()).request_object_signing_alg_values_supported!) {
      expect((await registered(t, { ...WEB_CLIENT, jwks, request_object_signing_alg: alg })).request_object_signing_alg).toBe(alg);
    }
  });
  test("request_object_signing_alg none needs no keys", async () => {
    expect((await registered(t, { ...WEB_CLIENT, request_object_signing_alg: "none" })).request_object_signing_alg).toBe("none");
  });
  test("a request_object_signing_alg that is not advertised (HS256) is invalid_client_metadata", async () => {
    expect(await metadata_error({ jwks, request_object_signing_alg: "HS256" })).toContain("request_object_signing_alg");
  });
  test("a signed request_object_signing_alg without jwks or jwks_uri is invalid_client_metadata", async () => {
    expect(await metadata_error({ request_object_signing_alg: "RS256" })).toContain("jwks");
  });
  test("every advertised token_endpoint_auth_signing_alg is accepted and returned", async () => {
    for (const alg of (await discovery()).token_endpoint_auth_signing_alg_values_supported!) {
      const info = await registered(t, { ...WEB_CLIENT, jwks, token_endpoint_auth_method: "private_key_jwt", token_endpoint_auth_signing_alg: alg });
      expect(info.token_endpoint_auth_signing_alg).toBe(alg);
      expect((await t.store.get_client(info.client_id))!.metadata.token_endpoint_auth_signing_alg).toBe(alg);
    }
  });
  test("a token_endpoint_auth_signing_alg that is not advertised (HS256, none) is invalid_client_metadata", async () => {
    for (const alg of ["HS256", "none"]) {
      expect(await metadata_error({ jwks, token_endpoint_auth_method: "private_key_jwt", token_endpoint_auth_signing_alg: alg })).toContain("token_endpoint_auth_signing_alg");
    }
  });
  test("an alg that is not a string is invalid_client_metadata", async () => {
    await metadata_error({ request_object_signing_alg: 256 });
    await metadata_error({ token_endpoint_auth_signing_alg: ["RS256"] });
  });
});
