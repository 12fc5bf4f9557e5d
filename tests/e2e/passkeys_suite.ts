/**
 * Passkeys in Chromium with the DevTools virtual authenticator (CTAP2, internal transport,
 * resident keys, user verification) and a real relying party (openid-client): add a passkey on
 * the account page (after the password), rename it, sign out, sign in with it and no password
 * through a full authorization-code flow (amr and acr checked by the RP), use it as a second
 * factor after a password, remove it. Negative cases over HTTP with assertions signed by the
 * authenticator's own key (read from DevTools): a replayed challenge, another RP ID, a counter
 * going backwards, a removed credential. axe on the new pages.
 *
 * WebAuthn needs a secure context and an RP ID that is a domain: the issuer is http://localhost.
 * Run on SQLite (passkeys.test.ts) and PostgreSQL (passkeys_postgres.test.ts): one server and
 * one browser per file.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { createHash, createPrivateKey, sign, type KeyObject } from "node:crypto";
import type { Browser, BrowserContext, CDPSession, Page } from "playwright-core";
import { axe, chromium_available, launch, serious } from "../helpers/chromium.ts";
import { Browser as HttpBrowser, hidden_field } from "../helpers/browser.ts";
import { authorization_url, pkce } from "../helpers/flow.ts";
import { free_port, start_provider, type TestProvider } from "../helpers/provider.ts";
import { start_rp, type RelyingParty } from "../helpers/rp.ts";

/** A fresh database for the provider: its URL, and how to remove it afterwards. */
export type SuiteDatabase = { url: string; drop(): Promise<void> };

export function passkey_browser_suite(label: string, database: () => Promise<SuiteDatabase>): void {
  let db: SuiteDatabase;
  let t: TestProvider;
  let rp: RelyingParty;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let cdp: CDPSession;
  let authenticator_id: string;

  const USERNAME = "pia";

  beforeAll(async () => {
    if (!chromium_available) return;
    db = await database();
    t = await start_provider({ issuer_host: "localhost", database_url: db.url });
    const port = await free_port();
    const { client, secret } = await t.add_client({
      client_name: "Passkey App",
      redirect_uris: [`http://127.0.0.1:${port}/callback`],
      token_endpoint_auth_method: "client_secret_basic",
    });
    rp = await start_rp(t.issuer, port, client.client_id, secret);
    await t.add_user({ username: USERNAME, name: "Pia Passkey", email: "pia@example.com" });
    browser = await launch();
    context = await browser.newContext();
    page = await context.newPage();
    cdp = await context.newCDPSession(page);
    await cdp.send("WebAuthn.enable");
    const added = await cdp.send("WebAuthn.addVirtualAuthenticator", {
      options: { protocol: "ctap2", transport: "internal", hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
    });
    authenticator_id = added.authenticatorId;
  }, 90_000);

  afterAll(async () => {
    if (!chromium_available) return;
    await browser.close();
    rp.stop();
    await t.stop();
    await db.drop();
  });

  async function user_id(): Promise<string> {
    return (await t.store.get_user_by_username(USERNAME))!.id;
  }

  async function rp_claims(p: Page): Promise<Record<string, unknown>> {
    await p.waitForURL((url) => url.href.startsWith(rp.callback));
    if ((await p.locator("#error").count()) > 0) throw new Error(await p.locator("#error").innerText());
    return JSON.parse(await p.locator("#claims").innerText()) as Record<string, unknown>;
  }

  async function sign_out(p: Page): Promise<void> {
    await p.goto(`${t.issuer}/account`);
    await p.getByRole("link", { name: "Sign out" }).click();
    await p.getByRole("button", { name: "Log out" }).click();
    await p.waitForLoadState();
    expect((await p.context().cookies()).some((c) => c.name === "idp_session")).toBe(false);
  }

  /**
   * From now on the pages of `context` see a browser without passkey autofill (conditional
   * mediation): the virtual authenticator answers a conditional request at once, which would sign
   * in before a test could type a password or press the passkey button.
   */
  async function without_autofill(c: BrowserContext): Promise<void> {
    await c.addInitScript(() => {
      PublicKeyCredential.isConditionalMediationAvailable = async () => false;
    });
  }

  async function password_sign_in(p: Page, password = t.password): Promise<void> {
    await p.getByLabel("Username").fill(USERNAME);
    await p.getByLabel("Password").fill(password);
    await p.getByRole("button", { name: "Sign in", exact: true }).click();
  }

  describe.skipIf(!chromium_available)(`passkeys in Chromium (virtual authenticator), ${label}`, () => {
    test("add a passkey on the account page after the password, then rename it", async () => {
      await page.goto(`${t.issuer}/account/login`);
      await password_sign_in(page);
      await page.waitForURL(/\/account$/);
      await expect(page.locator("#passkeys-heading")).toBeDefined();
      // A wrong password is refused before any ceremony.
      await page.locator("#passkey-new-name").fill("Work laptop");
      await page.locator("#passkey-password").fill("not the password");
      await page.getByRole("button", { name: "Add a passkey" }).click();
      await page.locator("#passkey-status", { hasText: "Your password is not right." }).waitFor();
      expect(await t.store.count_passkeys_for_user(await user_id())).toBe(0);

      await page.locator("#passkey-password").fill(t.password);
      await page.getByRole("button", { name: "Add a passkey" }).click();
      await page.waitForURL(/done=passkey_added/);
      expect(await page.getByRole("status").first().innerText()).toContain("Passkey added");
      const [stored] = await t.store.list_passkeys_for_user(await user_id());
      expect(stored).toMatchObject({ name: "Work laptop", counter: expect.any(Number), backup_eligible: false, last_used_at: null });
      expect(stored!.transports).toContain("internal");
      const credentials = (await cdp.send("WebAuthn.getCredentials", { authenticatorId: authenticator_id })).credentials;
      expect(credentials).toHaveLength(1);
      expect(credentials[0]!.isResidentCredential).toBe(true);
      expect(credentials[0]!.rpId).toBe("localhost");
      expect(Buffer.from(credentials[0]!.credentialId, "base64").toString("base64url")).toBe(stored!.credential_id);
      expect(await page.locator(".passkeys h3").allInnerTexts()).toEqual(["Work laptop"]);
      expect((await t.store.list_audit_events({ user_id: await user_id(), type: "passkey_added" }))[0]).toMatchObject({ outcome: "success" });

      await page.getByLabel("New name for Work laptop").fill("My laptop");
      await page.getByRole("button", { name: "Rename Work laptop" }).click();
      await page.waitForURL(/done=passkey_renamed/);
      expect(await page.locator(".passkeys h3").allInnerTexts()).toEqual(["My laptop"]);
    }, 60_000);

    test("sign out, then sign in from the username field's passkey autofill (conditional mediation), no password: amr, acr phr", async () => {
      await sign_out(page);
      // The virtual authenticator picks the passkey the autofill offers as soon as the page asks.
      await page.goto(`${rp.url}/login?acr_values=phr`);
      await page.waitForURL(/\/consent$/);
      await page.getByRole("button", { name: "Allow" }).click();
      const claims = await rp_claims(page);
      expect(claims.sub).toBe(await user_id());
      expect(claims.amr).toEqual(["hwk", "user"]);
      expect(claims.acr).toBe("phr");
    }, 60_000);

    test("sign out, then sign in with the passkey button and no password through the RP: amr and acr phr", async () => {
      await without_autofill(context);
      await sign_out(page);
      await page.goto(`${rp.url}/login?acr_values=phr`);
      await page.waitForURL(/\/login$/);
      expect(await page.getByLabel("Username").getAttribute("autocomplete")).toBe("username webauthn");
      await page.getByRole("button", { name: "Use a passkey" }).click();
      const claims = await rp_claims(page);
      expect(claims.sub).toBe(await user_id());
      expect(claims.amr).toEqual(["hwk", "user"]);
      expect(claims.acr).toBe("phr");
      const [stored] = await t.store.list_passkeys_for_user(await user_id());
      expect(stored!.last_used_at).not.toBeNull();
      const logins = await t.store.list_audit_events({ user_id: await user_id(), type: "login" });
      expect(logins[0]).toMatchObject({ outcome: "success", details: { amr: ["hwk", "user"] } });
    }, 60_000);

    test("a passkey as second factor after the password: amr pwd + hwk + mfa, acr mfa", async () => {
      await sign_out(page);
      await page.goto(`${rp.url}/login?acr_values=mfa`);
      await password_sign_in(page);
      await page.waitForURL(/\/two-factor$/);
      expect(await page.getByLabel("6-digit code").count()).toBe(0);
      await page.getByRole("button", { name: "Use a passkey" }).click();
      const claims = await rp_claims(page);
      expect(claims.amr).toEqual(["pwd", "hwk", "mfa"]);
      expect(claims.acr).toBe("mfa");
      // The account's own sign-in asks for it too.
      await sign_out(page);
      await page.goto(`${t.issuer}/account/login`);
      await password_sign_in(page);
      await page.waitForURL(/\/two-factor$/);
      await page.getByRole("button", { name: "Use a passkey" }).click();
      await page.waitForURL(/\/account$/);
    }, 60_000);

    describe("refused assertions (signed with the authenticator's key, sent over HTTP)", () => {
      const local = (url: string) => url.replace(t.issuer, t.url);

      /** The authenticator's passkey: its private key (PKCS#8, from DevTools) and credential id. */
      async function authenticator_key(): Promise<{ key: KeyObject; credential_id: string }> {
        const [credential] = (await cdp.send("WebAuthn.getCredentials", { authenticatorId: authenticator_id })).credentials;
        const key = createPrivateKey({ key: Buffer.from(credential!.privateKey, "base64"), format: "der", type: "pkcs8" });
        return { key, credential_id: Buffer.from(credential!.credentialId, "base64").toString("base64url") };
      }

      /** A sign-in page of an authorization request, over HTTP: its interaction id and form token. */
      async function login_page(http: HttpBrowser): Promise<{ id: string; csrf: string }> {
        const start = await http.get(authorization_url(t, { code_challenge: pkce().challenge, code_challenge_method: "S256" }));
        const location = start.headers.get("location")!;
        const html = await (await http.get(local(location))).text();
        return { id: /\/interaction\/([^/]+)\/login$/.exec(location)![1]!, csrf: hidden_field(html, "csrf")! };
      }

      async function challenge(http: HttpBrowser, id: string, csrf: string): Promise<string> {
        const answer = await http.post(`${t.url}/interaction/${id}/passkey/options`, { csrf, step: "login" });
        expect(answer.status).toBe(200);
        const options = (await answer.json()) as { challenge: string; rpId: string; userVerification: string; allowCredentials: unknown[] };
        expect(options).toMatchObject({ rpId: "localhost", userVerification: "required", allowCredentials: [] });
        return options.challenge;
      }

      /** WebAuthn §6.1 authenticator data and §7.2 signature over it and the client data's hash. */
      async function assertion(challenge_value: string, options: { counter: number; rp_id?: string }): Promise<string> {
        const { key, credential_id } = await authenticator_key();
        const flags = 0x01 | 0x04; // UP and UV
        const counter = Buffer.alloc(4);
        counter.writeUInt32BE(options.counter);
        const auth_data = Buffer.concat([
          createHash("sha256")
            .update(options.rp_id ?? "localhost")
            .digest(),
          Buffer.from([flags]),
          counter,
        ]);
        const client_data = Buffer.from(JSON.stringify({ type: "webauthn.get", challenge: challenge_value, origin: t.issuer, crossOrigin: false }));
        const signed = Buffer.concat([auth_data, createHash("sha256").update(client_data).digest()]);
        // ES256 (COSE -7) signs its SHA-256, in DER (WebAuthn §6.5.5); Ed25519 (-8) and ML-DSA (which
        // Chromium's virtual authenticator picks when offered) sign the message itself.
        const signature = sign(key.asymmetricKeyType === "ec" ? "sha256" : null, signed, key);
        return JSON.stringify({
          id: credential_id,
          rawId: credential_id,
          type: "public-key",
          response: {
            authenticatorData: auth_data.toString("base64url"),
            clientDataJSON: client_data.toString("base64url"),
            signature: signature.toString("base64url"),
            userHandle: Buffer.from(await user_id()).toString("base64url"),
          },
          clientExtensionResults: {},
        });
      }

      async function counter_now(): Promise<number> {
        return (await t.store.list_passkeys_for_user(await user_id()))[0]!.counter;
      }

      test("a valid assertion signs in once; the same response again finds its challenge used", async () => {
        const http = new HttpBrowser();
        const { id, csrf } = await login_page(http);
        const body = { csrf, step: "login", response: await assertion(await challenge(http, id, csrf), { counter: (await counter_now()) + 10 }) };
        const first = await http.post(`${t.url}/interaction/${id}/passkey`, body);
        expect(first.status).toBe(303);
        expect(first.headers.get("location")).toMatch(/\/consent$|^https:\/\/rp\.example\.com\/callback/);

        const other = new HttpBrowser();
        const again = await login_page(other);
        const replay = await other.post(`${t.url}/interaction/${again.id}/passkey`, { ...body, csrf: again.csrf });
        expect(replay.status).toBe(403);
        expect(await replay.text()).toContain("expired or was already used");
        const failures = (await t.store.list_audit_events({ type: "login" })).filter((e) => e.outcome === "failure");
        expect(failures[0]!.details).toMatchObject({ method: "passkey", reason: "challenge" });
      });

      test("an assertion for another RP ID is refused", async () => {
        const http = new HttpBrowser();
        const { id, csrf } = await login_page(http);
        const before = await counter_now();
        const answer = await http.post(`${t.url}/interaction/${id}/passkey`, {
          csrf,
          step: "login",
          response: await assertion(await challenge(http, id, csrf), { counter: before + 10, rp_id: "evil.example" }),
        });
        expect(answer.status).toBe(403);
        expect(await answer.text()).toContain("could not be checked");
        expect(await counter_now()).toBe(before);
        expect(http.cookies.has("idp_session")).toBe(false);
      });

      test("a counter going backwards is refused and audited", async () => {
        const passkey = (await t.store.list_passkeys_for_user(await user_id()))[0]!;
        // The stored counter set higher than the authenticator will send (as a clone's would be behind).
        expect(await t.store.use_passkey(passkey.id, passkey.counter + 1000, false, t.clock.now())).toBe(true);
        const http = new HttpBrowser();
        const { id, csrf } = await login_page(http);
        const answer = await http.post(`${t.url}/interaction/${id}/passkey`, {
          csrf,
          step: "login",
          response: await assertion(await challenge(http, id, csrf), { counter: passkey.counter + 500 }),
        });
        expect(answer.status).toBe(403);
        expect(await answer.text()).toContain("counter went backwards");
        const [event] = await t.store.list_audit_events({ type: "passkey_counter_regressed" });
        expect(event).toMatchObject({ outcome: "failure", user_id: passkey.user_id, details: { method: "passkey", reason: "counter" } });
        expect(await counter_now()).toBe(passkey.counter + 1000);
      });

      test("remove it on the account page; the removed credential no longer signs in", async () => {
        await page.goto(`${t.issuer}/account`);
        // Removing asks for the password first (re-authentication, as removing TOTP does).
        await page.getByLabel("Your password to remove My laptop").fill("not the password");
        await page.getByRole("button", { name: "Remove My laptop" }).click();
        expect(await page.getByRole("alert").innerText()).toContain("Your password is not right");
        expect(await t.store.count_passkeys_for_user(await user_id())).toBe(1);
        await page.getByLabel("Your password to remove My laptop").fill(t.password);
        await page.getByRole("button", { name: "Remove My laptop" }).click();
        await page.waitForURL(/done=passkey_removed/);
        expect(await page.locator(".passkeys h3").count()).toBe(0);
        expect(await t.store.count_passkeys_for_user(await user_id())).toBe(0);

        const http = new HttpBrowser();
        const { id, csrf } = await login_page(http);
        const answer = await http.post(`${t.url}/interaction/${id}/passkey`, {
          csrf,
          step: "login",
          response: await assertion(await challenge(http, id, csrf), { counter: 1_000_000 }),
        });
        expect(answer.status).toBe(403);
        expect(await answer.text()).toContain("not registered");
        // With no passkey left, the password alone signs in again (no second-factor page).
        await sign_out(page);
        await page.goto(`${t.issuer}/account/login`);
        await password_sign_in(page);
        await page.waitForURL(/\/account$/);
      });
    });

    test("a client that requires a second factor: a user without one adds a passkey after the password, then is signed in", async () => {
      const port = await free_port();
      const { client, secret } = await t.add_client({
        client_name: "Strict App",
        redirect_uris: [`http://127.0.0.1:${port}/callback`],
        token_endpoint_auth_method: "client_secret_basic",
        require_2fa: true,
      });
      const strict = await start_rp(t.issuer, port, client.client_id, secret);
      const rita = await t.add_user({ username: "rita" });
      const own = await browser.newContext();
      try {
        await without_autofill(own);
        const p = await own.newPage();
        const session = await own.newCDPSession(p);
        await session.send("WebAuthn.enable");
        await session.send("WebAuthn.addVirtualAuthenticator", {
          options: { protocol: "ctap2", transport: "internal", hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
        });
        await p.goto(`${strict.url}/login`);
        await p.getByLabel("Username").fill("rita");
        await p.getByLabel("Password").fill(t.password);
        await p.getByRole("button", { name: "Sign in", exact: true }).click();
        await p.waitForURL(/\/two-factor$/);
        await p.getByRole("heading", { name: "Add a second factor" }).waitFor();
        await p.getByRole("button", { name: "Add a passkey" }).click();
        await p.waitForURL(/\/consent$/);
        await p.getByRole("button", { name: "Allow" }).click();
        await p.waitForURL((url) => url.href.startsWith(strict.callback));
        const claims = JSON.parse(await p.locator("#claims").innerText()) as Record<string, unknown>;
        expect(claims.amr).toEqual(["pwd", "hwk", "mfa"]);
        expect((await t.store.list_passkeys_for_user(rita.id)).map((k) => k.name)).toEqual(["Passkey"]);
        const [event] = await t.store.list_audit_events({ user_id: rita.id, type: "passkey_added" });
        expect(event).toMatchObject({ outcome: "success", client_id: client.client_id, details: { at_sign_in: true } });
      } finally {
        await own.close();
        strict.stop();
      }
    }, 60_000);

    test("axe: the sign-in page with passkeys, the passkey step and the account page's passkeys", async () => {
      const a11y = await browser.newContext({ bypassCSP: true });
      const p = await a11y.newPage();
      const uid = await user_id();
      await t.store.create_passkey({
        credential_id: "axe-credential",
        user_id: uid,
        public_key: "AA",
        counter: 0,
        transports: [],
        backup_eligible: true,
        backup_state: true,
        aaguid: null,
        name: "Phone",
      });
      try {
        await p.goto(`${rp.url}/login`);
        await p.waitForURL(/\/login$/);
        expect(serious(await axe(p))).toEqual([]);
        await password_sign_in(p);
        await p.waitForURL(/\/two-factor$/);
        await p.getByRole("button", { name: "Use a passkey" }).waitFor();
        expect(serious(await axe(p))).toEqual([]);
        await p.goto(`${t.issuer}/account/login`);
        await password_sign_in(p);
        await p.waitForURL(/\/two-factor$/);
        const [row] = await t.store.list_passkeys_for_user(uid);
        // Signed in for the account page through the store (the stored key is not a real one).
        await t.store.delete_passkey(uid, row!.id);
        await p.goto(`${t.issuer}/account/login`);
        await password_sign_in(p);
        await p.waitForURL(/\/account$/);
        // The section with a passkey listed (its rename and remove form).
        await t.store.create_passkey({
          credential_id: "axe-credential-2",
          user_id: uid,
          public_key: "AA",
          counter: 0,
          transports: [],
          backup_eligible: true,
          backup_state: true,
          aaguid: null,
          name: "Phone",
        });
        await p.reload();
        await p.locator(".passkeys h3").waitFor();
        expect(serious(await axe(p))).toEqual([]);
        await t.store.delete_passkey(uid, (await t.store.list_passkeys_for_user(uid))[0]!.id);
      } finally {
        await a11y.close();
      }
    }, 60_000);
  });
}
