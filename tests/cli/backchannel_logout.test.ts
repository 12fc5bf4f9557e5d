/**
 * Sessions ended from the command line tell their clients as the admin API does (OIDC
 * Back-Channel Logout 1.0 §2.4–2.6, src/cli/logout.ts → oidc/logout/bulk.ts): a relying party
 * signs a user in, `idp users set-password|reset-2fa|disable|remove` and `idp users passkeys
 * remove` run on the same database, and the RP's backchannel_logout_uri receives a logout token
 * that verifies against the provider's JWKS, before the command returns.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { type FetchServer, serve_fetch } from "../helpers/serve_fetch.ts";
import { createRemoteJWKSet, jwtVerify } from "jose";
import { BACKCHANNEL_LOGOUT_EVENT } from "../../src/oidc/logout/backchannel.ts";
import { Browser } from "../helpers/browser.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";
import { make_rp, sign_in } from "../http/logout_helpers.ts";
import { sandbox, type Sandbox } from "./helpers.ts";

let cli: Sandbox;
let t: TestProvider;
let rp_server: FetchServer;
const received: { path: string; token: string }[] = [];

beforeAll(async () => {
  cli = sandbox();
  rp_server = await serve_fetch(async (request) => {
    received.push({ path: new URL(request.url).pathname, token: new URLSearchParams(await request.text()).get("logout_token") ?? "" });
    return new Response(null, { status: 200 });
  });
  // The RP listens on 127.0.0.1 over http: the operator allow-lists it for the server and the CLI alike.
  t = await start_provider({ database_url: cli.env.DATABASE_URL!, config: { outbound: { allow_http: true, allow: ["127.0.0.1/32"] } } });
  Object.assign(cli.env, { IDP_ISSUER: t.issuer, IDP_OUTBOUND_ALLOW_HTTP: "true", IDP_OUTBOUND_ALLOW: "127.0.0.1/32" });
});
afterAll(async () => {
  await rp_server.stop();
  await t?.stop();
  cli?.cleanup();
});

const tokens_to = (path: string) => received.filter((r) => r.path === path).map((r) => r.token);

/** A user signed in at an RP whose backchannel_logout_uri is `path`; the RP's client_id and the session's sid. */
async function signed_in(username: string, path: string): Promise<{ client_id: string; sid: string; user_id: string }> {
  const user = await t.add_user({ username });
  const rp = await make_rp(t, { backchannel_logout_uri: `http://127.0.0.1:${rp_server.port}${path}` });
  const { claims } = await sign_in(t, rp, new Browser(), username);
  return { client_id: rp.client_id, sid: String(claims.sid), user_id: user.id };
}

async function expect_logout_token(path: string, session: { client_id: string; sid: string; user_id: string }): Promise<void> {
  const [token] = tokens_to(path);
  expect(token).toBeDefined();
  const { payload } = await jwtVerify(token!, createRemoteJWKSet(new URL(`${t.issuer}/.well-known/jwks.json`)), {
    issuer: t.issuer,
    audience: session.client_id,
    typ: "logout+jwt",
  });
  expect(payload).toMatchObject({ sub: session.user_id, sid: session.sid, events: { [BACKCHANNEL_LOGOUT_EVENT]: {} } });
}

describe("the command line sends back-channel logout when it ends a user's sessions", () => {
  test("users set-password", async () => {
    const session = await signed_in("cli-pw", "/set-password");
    const result = await cli.run(["users", "set-password", "cli-pw", "--password-stdin"], { stdin: "a brand new passphrase\n" });
    expect(result.code).toBe(0);
    await expect_logout_token("/set-password", session);
  });

  test("users reset-2fa, users disable, users remove", async () => {
    for (const [command, path] of [
      ["reset-2fa", "/reset-2fa"],
      ["disable", "/disable"],
      ["remove", "/remove"],
    ] as const) {
      const name = `cli-${command}`;
      const session = await signed_in(name, path);
      if (command === "reset-2fa") await t.store.update_user(session.user_id, { totp_secret: "JBSWY3DPEHPK3PXP", totp_enabled_at: t.clock.now() });
      const result = await cli.run(["users", command, name]);
      expect({ command, code: result.code, stderr: result.stderr }).toEqual({ command, code: 0, stderr: "" });
      await expect_logout_token(path, session);
    }
  });

  test("no client with a back-channel URI: nothing is sent, nothing is waited for", async () => {
    await t.add_user({ username: "cli-quiet" });
    const before = received.length;
    expect((await cli.run(["users", "disable", "cli-quiet"])).code).toBe(0);
    expect(received.length).toBe(before);
  });
});
