/**
 * An upstream OpenID Connect provider for federation tests: panva's oidc-provider on loopback,
 * with its development sign-in pages (any password; the login is the account's key). The accounts
 * are read at every sign-in, so a test may change an account's claims between two sign-ins.
 *
 *   const op = await start_oidc_upstream(ACCOUNTS, [`${t.issuer}/federation/op/callback`]);
 *   await t.store.create_upstream(new_upstream(t.config, { name: "op", issuer: op.issuer, client_id: op.client_id, client_secret: op.client_secret }));
 *   await upstream_sign_in(page, op.issuer, "alice-up");
 */
import { randomBytes } from "node:crypto";
import type { Server } from "node:http";
// @ts-expect-error oidc-provider ships no type declarations (and @types/oidc-provider is not installed)
import Provider from "oidc-provider";
import type { Page } from "playwright-core";
import { free_port } from "./provider.ts";

export type UpstreamAccount = { sub: string; email: string; email_verified: boolean; name: string; groups?: string[] };

export type OidcUpstream = { issuer: string; client_id: string; client_secret: string; stop(): Promise<void> };

export async function start_oidc_upstream(accounts: Record<string, UpstreamAccount>, redirect_uris: string[]): Promise<OidcUpstream> {
  const port = await free_port();
  const issuer = `http://127.0.0.1:${port}`;
  const client_secret = randomBytes(24).toString("base64url");
  const op = new Provider(issuer, {
    clients: [{ client_id: "our-idp", client_secret, redirect_uris, grant_types: ["authorization_code"], response_types: ["code"] }],
    async findAccount(_ctx: unknown, id: string) {
      const account = accounts[id];
      if (account === undefined) return undefined;
      return { accountId: id, claims: async () => ({ ...accounts[id] }) };
    },
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name", "groups"] },
    scopes: ["openid", "email", "profile"],
    cookies: { keys: [randomBytes(32).toString("hex")] },
    pkce: { required: () => true },
    features: { devInteractions: { enabled: true } },
  });
  // oidc-provider's error log for refused requests is expected noise here.
  op.on("server_error", () => {});
  const server: Server = await new Promise((resolve) => {
    const listening = op.listen(port, "127.0.0.1", () => resolve(listening));
  });
  return { issuer, client_id: "our-idp", client_secret, stop: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** oidc-provider's development sign-in and consent pages, as `login`. */
export async function upstream_sign_in(page: Page, issuer: string, login: string): Promise<void> {
  await page.waitForURL((u) => u.href.startsWith(issuer));
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill("any");
  await page.locator('button[type="submit"]').click();
  // Consent (first time for this account in this browser).
  await page.waitForURL((u) => !u.href.includes("/login"), { timeout: 10_000 }).catch(() => {});
  if (page.url().startsWith(issuer)) await page.locator('button[type="submit"]').click();
}
