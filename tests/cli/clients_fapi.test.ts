/**
 * `idp clients add|update --fapi 2.0`: the FAPI 2.0 Security Profile for one client (src/oidc/clients/fapi.ts),
 * with its defaults, and metadata the profile forbids refused naming the member.
 */
import { afterEach, beforeEach, describe, expect, test } from "../helpers/test_api.ts";
import { exportJWK, generateKeyPair } from "jose";
import { open_store } from "../../src/store/open.ts";
import { sandbox, type Sandbox } from "./helpers.ts";

let box: Sandbox;
beforeEach(() => {
  box = sandbox();
});
afterEach(() => box.cleanup());

async function jwks(): Promise<string> {
  const { publicKey } = await generateKeyPair("ES256", { extractable: true });
  return JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid: "k1", alg: "ES256" }] });
}

async function stored_metadata(client_id: string) {
  const store = await open_store(box.env.DATABASE_URL!);
  try {
    return (await store.get_client(client_id))?.metadata;
  } finally {
    await store.close();
  }
}

describe("idp clients --fapi", () => {
  // The sandbox key ring is RS256, ES256: ES256 is the first FAPI alg it has.
  test("add --fapi 2.0: private_key_jwt client with the profile's defaults, no secret", async () => {
    const result = await box.run([
      "clients",
      "add",
      "--json",
      "--name",
      "Bank",
      "--redirect-uri",
      "https://bank.example.com/cb",
      "--auth-method",
      "private_key_jwt",
      "--jwks-json",
      await jwks(),
      "--fapi",
      "2.0",
    ]);
    expect(result.code).toBe(0);
    const client = result.json<Record<string, unknown> & { client_id: string }>();
    expect(client).toMatchObject({
      fapi_profile: "2.0",
      id_token_signed_response_alg: "ES256",
      authorization_signed_response_alg: "ES256",
      require_pushed_authorization_requests: true,
      dpop_bound_access_tokens: true,
      has_secret: false,
    });
    expect(await stored_metadata(client.client_id)).toMatchObject({ fapi_profile: "2.0" });
  });

  test("add --fapi 2.0 refuses a secret client and an http redirect URI, naming the member; nothing is stored", async () => {
    const secret = await box.run(["clients", "add", "--name", "Bank", "--redirect-uri", "https://bank.example.com/cb", "--fapi", "2.0"]);
    expect(secret.code).toBe(1);
    expect(secret.stderr).toContain("--fapi 2.0: token_endpoint_auth_method must be private_key_jwt");
    const http = await box.run([
      "clients",
      "add",
      "--name",
      "Bank",
      "--redirect-uri",
      "http://localhost:9000/cb",
      "--auth-method",
      "private_key_jwt",
      "--jwks-json",
      await jwks(),
      "--fapi",
      "2.0",
    ]);
    expect(http.code).toBe(1);
    expect(http.stderr).toContain("redirect_uris");
    expect(http.stderr).toContain("https");
    const bad = await box.run(["clients", "add", "--name", "Bank", "--redirect-uri", "https://bank.example.com/cb", "--fapi", "1.0"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--fapi "1.0" is not one of 2.0');
    expect((await box.run(["clients", "list", "--json"])).json<unknown[]>()).toEqual([]);
  });

  test("update --fapi 2.0 and off", async () => {
    const added = (
      await box.run([
        "clients",
        "add",
        "--json",
        "--name",
        "Bank",
        "--redirect-uri",
        "https://bank.example.com/cb",
        "--auth-method",
        "private_key_jwt",
        "--jwks-json",
        await jwks(),
      ])
    ).json<{ client_id: string }>();
    const on = await box.run(["clients", "update", added.client_id, "--fapi", "2.0"]);
    expect(on.code).toBe(0);
    expect(await stored_metadata(added.client_id)).toMatchObject({ fapi_profile: "2.0", id_token_signed_response_alg: "ES256" });
    const off = await box.run(["clients", "update", added.client_id, "--fapi", "off"]);
    expect(off.code).toBe(0);
    expect(await stored_metadata(added.client_id)).not.toHaveProperty("fapi_profile");
  });
});
