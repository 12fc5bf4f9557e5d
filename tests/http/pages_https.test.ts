/**
 * An https issuer (in process, no TLS needed): cookies are Secure and every answer carries HSTS.
 */
import { afterAll, beforeAll, expect, test } from "../helpers/test_api.ts";
import { load_config } from "../../src/app/config.ts";
import { create_provider } from "../../src/app/provider.ts";
import { build_app } from "../../src/app/server.ts";
import { open_store } from "../../src/store/open.ts";
import type { Store } from "../../src/store/types.ts";
import { pkce } from "../helpers/flow.ts";

const ISSUER = "https://id.example.com";
let store: Store;
let app: ReturnType<typeof build_app>;

beforeAll(async () => {
  store = await open_store("sqlite::memory:");
  await store.create_client({ client_id: "web", client_secret_hash: null, metadata: { redirect_uris: ["https://rp.example.com/cb"], token_endpoint_auth_method: "none" } });
  const config = load_config({}, { issuer: ISSUER, database_url: "sqlite::memory:", signing_algs: ["RS256"], log_requests: false });
  app = build_app(await create_provider(config, { store, log: () => {} }));
});
afterAll(() => store.close());

test("https issuer: Secure cookies, HSTS, and discovery URLs on https", async () => {
  const p = pkce();
  const query = new URLSearchParams({
    client_id: "web",
    redirect_uri: "https://rp.example.com/cb",
    response_type: "code",
    scope: "openid",
    code_challenge: p.challenge,
    code_challenge_method: "S256",
  });
  const response = await app.fetch(new Request(`${ISSUER}/authorize?${query}`));
  expect(response.status).toBe(302);
  expect(response.headers.get("location")).toStartWith(`${ISSUER}/interaction/`);
  const cookie = response.headers.getSetCookie()[0]!;
  expect(cookie).toContain("Secure");
  expect(cookie).toContain("HttpOnly");
  expect(response.headers.get("strict-transport-security")).toStartWith("max-age=");
  const page = await app.fetch(new Request(response.headers.get("location")!, { headers: { cookie: cookie.split(";")[0]!, accept: "text/html" } }));
  expect(page.status).toBe(200);
  expect(page.headers.get("strict-transport-security")).toStartWith("max-age=");
  expect(await page.text()).toContain(`href="${ISSUER}/static/style.css"`);
  const discovery = (await (await app.fetch(new Request(`${ISSUER}/.well-known/openid-configuration`))).json()) as Record<string, string>;
  expect(discovery.token_endpoint).toBe(`${ISSUER}/token`);
});
