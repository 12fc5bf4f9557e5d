/**
 * Who may register (config.registration): "token" (the default) needs an initial access token
 * made by `registration-token create` (RFC 7591 §3), "open" lets anyone register, "off" mounts
 * no endpoint and advertises none.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { random_token, sha256 } from "../../src/oidc/crypto/secrets.ts";
import { sandbox, type Sandbox } from "../cli/helpers.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";
import { WEB_CLIENT, register, registered } from "./register_helpers.ts";

async function expect_invalid_token(response: Response, challenge_error: boolean): Promise<void> {
  expect(response.status).toBe(401);
  const challenge = response.headers.get("www-authenticate") ?? "";
  expect(challenge).toStartWith("Bearer ");
  // RFC 6750 §3.1: no error code in the challenge when no token was sent.
  if (challenge_error) expect(challenge).toContain('error="invalid_token"');
  else expect(challenge).not.toContain("error=");
  expect(((await response.json()) as { error: string }).error).toBe("invalid_token");
}

describe('registration "token" (the default)', () => {
  let t: TestProvider;
  let box: Sandbox;
  beforeAll(async () => {
    // One SQLite file shared by the provider and the CLI, as in a real deployment.
    box = sandbox();
    t = await start_provider({ database_url: box.env.DATABASE_URL! });
  });
  afterAll(async () => {
    await t.stop();
    box.cleanup();
  });

  async function stored_token(expires_at: number | null): Promise<string> {
    const token = random_token(32);
    await t.store.create_initial_access_token({ token_hash: sha256(token), expires_at });
    return token;
  }

  test("is the default policy", () => {
    expect(t.config.registration).toBe("token");
  });

  test("without a token: 401 invalid_token with a Bearer challenge", async () => {
    await expect_invalid_token(await register(t, WEB_CLIENT), false);
  });

  test("with an unknown token: 401 invalid_token", async () => {
    await expect_invalid_token(await register(t, WEB_CLIENT, { token: random_token(32) }), true);
  });

  test("with an expired token: 401 invalid_token", async () => {
    const token = await stored_token(t.clock.now() - 1);
    const response = await register(t, WEB_CLIENT, { token });
    await expect_invalid_token(response.clone(), true);
    expect(((await response.json()) as { error_description: string }).error_description).toContain("expired");
  });

  test("a Basic header is not a token", async () => {
    const response = await fetch(`${t.url}/register`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Basic YTpi" },
      body: JSON.stringify(WEB_CLIENT),
    });
    await expect_invalid_token(response, false);
  });

  test("the access check comes before the metadata: invalid metadata without a token is still 401", async () => {
    await expect_invalid_token(await register(t, { redirect_uris: ["http://evil.example.com/cb"] }), false);
  });

  test("a token made by `registration-token create` registers clients until it expires", async () => {
    const created = await box.run(["registration-token", "create", "--expires-in", "3600", "--json"]);
    expect(created.code).toBe(0);
    const { token } = created.json<{ token: string }>();
    const first = await registered(t, WEB_CLIENT, { token });
    const second = await registered(t, WEB_CLIENT, { token });
    expect(first.client_id).not.toBe(second.client_id);
    t.clock.advance(3601);
    try {
      await expect_invalid_token(await register(t, WEB_CLIENT, { token }), true);
    } finally {
      t.clock.advance(-3601);
    }
  });

  test("a token without expiry works", async () => {
    const token = await stored_token(null);
    const response = await register(t, WEB_CLIENT, { token });
    expect(response.status).toBe(201);
  });

  test("a token from `registration-token create` without --expires-in expires after 24 hours: then 401 invalid_token", async () => {
    const { token, expires_at, created_at } = (await box.run(["registration-token", "create", "--json"])).json<{ token: string; expires_at: number; created_at: number }>();
    expect(expires_at - created_at).toBe(24 * 3600);
    await registered(t, WEB_CLIENT, { token });
    t.clock.advance(24 * 3600 + 1);
    try {
      const response = await register(t, WEB_CLIENT, { token });
      await expect_invalid_token(response.clone(), true);
      expect(((await response.json()) as { error_description: string }).error_description).toBe("the initial access token is expired");
    } finally {
      t.clock.advance(-(24 * 3600 + 1));
    }
  });

  test("--uses 2: two registrations, then 401 invalid_token (used up); refused metadata spends no use", async () => {
    const { token, id } = (await box.run(["registration-token", "create", "--uses", "2", "--json"])).json<{ token: string; id: string }>();
    expect((await register(t, { redirect_uris: ["https://*.example.com/cb"] }, { token })).status).toBe(400);
    await registered(t, WEB_CLIENT, { token });
    await registered(t, WEB_CLIENT, { token });
    const response = await register(t, WEB_CLIENT, { token });
    await expect_invalid_token(response.clone(), true);
    expect(((await response.json()) as { error_description: string }).error_description).toBe("the initial access token is used up");
    const listed = (await box.run(["registration-token", "list", "--json"])).json<{ id: string; uses_left: number | null; status: string }[]>();
    expect(listed.find((row) => row.id === id)).toMatchObject({ uses_left: 0, status: "used up" });
  });

  test("a 1-use token and concurrent registrations: exactly one succeeds, the others get 401", async () => {
    const { token } = (await box.run(["registration-token", "create", "--uses", "1", "--json"])).json<{ token: string }>();
    const before = (await t.store.list_clients()).length;
    const answers = await Promise.all(Array.from({ length: 5 }, () => register(t, WEB_CLIENT, { token })));
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 401, 401, 401, 401]);
    expect((await t.store.list_clients()).length).toBe(before + 1);
  });

  test("a revoked token: 401 invalid_token", async () => {
    const { token, id } = (await box.run(["registration-token", "create", "--json"])).json<{ token: string; id: string }>();
    await registered(t, WEB_CLIENT, { token });
    expect((await box.run(["registration-token", "revoke", id])).code).toBe(0);
    await expect_invalid_token(await register(t, WEB_CLIENT, { token }), true);
  });

  test("discovery advertises the registration endpoint", async () => {
    const document = (await (await fetch(`${t.url}/.well-known/openid-configuration`)).json()) as { registration_endpoint?: string };
    expect(document.registration_endpoint).toBe(`${t.issuer}/register`);
  });
});

describe('registration "open"', () => {
  let t: TestProvider;
  beforeAll(async () => {
    t = await start_provider({ config: { registration: "open" } });
  });
  afterAll(() => t.stop());

  test("anyone may register, no token needed", async () => {
    const response = await register(t, WEB_CLIENT);
    expect(response.status).toBe(201);
  });

  test("a token that is sent anyway is not checked", async () => {
    const response = await register(t, WEB_CLIENT, { token: "whatever" });
    expect(response.status).toBe(201);
  });
});

describe('registration "off"', () => {
  let t: TestProvider;
  beforeAll(async () => {
    t = await start_provider({ config: { registration: "off" } });
  });
  afterAll(() => t.stop());

  test("POST /register is 404", async () => {
    const response = await register(t, WEB_CLIENT);
    expect(response.status).toBe(404);
  });

  test("the RFC 7592 endpoint is 404 too", async () => {
    const response = await fetch(`${t.url}/register/${t.client.client_id}`, { headers: { authorization: "Bearer x", accept: "application/json" } });
    expect(response.status).toBe(404);
  });

  test("discovery has no registration_endpoint", async () => {
    const document = (await (await fetch(`${t.url}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    expect(document.issuer).toBe(t.issuer);
    expect("registration_endpoint" in document).toBe(false);
  });
});
