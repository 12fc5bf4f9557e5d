/**
 * The demo (development mode only): on an empty database, `idp serve --demo` (what `npm start`
 * runs) creates a demo user and a demo application. The application is the provider's own
 * built-in relying party at /demo: it starts an authorization request (PKCE, state and nonce),
 * and /demo/callback exchanges the code and shows the ID Token's claims and the userinfo answer.
 *
 * The demo client is public (token_endpoint_auth_method "none", PKCE required): it has no secret
 * to print or to keep, and it only accepts redirects to this provider's /demo/callback.
 */
import { hash_password } from "../../platform/passwords.ts";
import { random_token } from "../crypto/secrets.ts";
import { DEVICE_CODE_GRANT } from "../authorize/device.ts";
import type { Provider } from "../provider.ts";

export const DEMO_CLIENT_ID = "demo";
export const DEMO_USERNAME = "demo";
export const DEMO_PATHS = { start: "/demo", callback: "/demo/callback" } as const;

export function demo_redirect_uri(idp: Provider): string {
  return `${idp.config.issuer}${DEMO_PATHS.callback}`;
}

export type DemoSeed = { username: string; password: string; client_id: string; redirect_uri: string; url: string };

/**
 * Creates the demo user (random password, returned once to print) and client when the database
 * has no users and no clients. Never in production: null there, and on a database in use.
 */
export async function seed_demo(idp: Provider): Promise<DemoSeed | null> {
  if (idp.config.production) return null;
  const [users, clients] = await Promise.all([idp.store.list_users({ limit: 1 }), idp.store.list_clients({ limit: 1 })]);
  if (users.length > 0 || clients.length > 0) return null;
  const password = random_token(16);
  await idp.store.create_user({
    username: DEMO_USERNAME,
    password_hash: await hash_password(password, idp.config.argon2),
    name: "Demo User",
    given_name: "Demo",
    family_name: "User",
    email: "demo@example.com",
    email_verified: true,
  });
  await idp.store.create_client({
    client_id: DEMO_CLIENT_ID,
    client_secret_hash: null,
    metadata: {
      client_name: "Demo App",
      redirect_uris: [demo_redirect_uri(idp)],
      token_endpoint_auth_method: "none",
      // RFC 8628: the demo device (/demo/device) uses the same client.
      grant_types: ["authorization_code", DEVICE_CODE_GRANT],
      response_types: ["code"],
    },
  });
  return { username: DEMO_USERNAME, password, client_id: DEMO_CLIENT_ID, redirect_uri: demo_redirect_uri(idp), url: `${idp.config.issuer}${DEMO_PATHS.start}` };
}

/**
 * The demo client's redirect URI follows the issuer: a start with another IDP_ISSUER, HOST or
 * PORT than the run that seeded it would otherwise leave the demo pointing at the old address
 * (and /demo refused with a redirect_uri mismatch). Outside production only; other redirect
 * URIs an operator added to the demo client are kept. Returns the new URI when it changed.
 */
export async function follow_issuer(idp: Provider): Promise<string | null> {
  if (idp.config.production) return null;
  const client = await idp.store.get_client(DEMO_CLIENT_ID);
  if (client === null) return null;
  const wanted = demo_redirect_uri(idp);
  const uris = client.metadata.redirect_uris ?? [];
  if (uris.includes(wanted)) return null;
  const kept = uris.filter((uri) => !uri.endsWith(DEMO_PATHS.callback));
  await idp.store.update_client(DEMO_CLIENT_ID, { metadata: { ...client.metadata, redirect_uris: [wanted, ...kept] } });
  return wanted;
}
