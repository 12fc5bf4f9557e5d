/**
 * Passkeys only where they can work (WebAuthn §5.1.4.1, §13.4.9: a secure context and an RP ID
 * that is a registrable domain or localhost), decided on the server from the issuer: at an IP
 * address the sign-in, second-factor and account pages offer no passkey and load no script (the
 * browser would only refuse with "127.0.0.1 is an invalid domain"); at a domain name they do,
 * with the script's messages in the page's language (views/passkey_status.eta). The script's
 * error path in a browser: tests/e2e/passkeys_messages.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { random_token, sha256 } from "../../src/oidc/crypto/secrets.ts";
import { passkeys_usable, rp_id_problem } from "../../src/oidc/signin/passkeys/rp_id.ts";
import { translator } from "../../src/oidc/ui/catalogs.ts";
import type { UserRow } from "../../src/store/types.ts";
import { Browser, account_login, hidden_field } from "../helpers/browser.ts";
import { authorization_url, pkce } from "../helpers/flow.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";

describe("rp_id_problem: where passkeys can work", () => {
  test("an https domain name or http://localhost: yes; an IP address, http on another host, a single-label name: no", () => {
    for (const issuer of ["https://id.example.com", "https://id.example.com:8443/tenant", "http://localhost:3000", "https://localhost"])
      expect([issuer, rp_id_problem(issuer)]).toEqual([issuer, null]);
    const refused: [string, string][] = [
      ["http://127.0.0.1:3000", "127.0.0.1 is an IP address"],
      ["https://192.0.2.10", "192.0.2.10 is an IP address"],
      ["https://[2001:db8::1]", "2001:db8::1 is an IP address"],
      ["http://[::1]:3000", "::1 is an IP address"],
      ["http://id.example.com", "the issuer uses http"],
      ["https://idp", "idp is a single-label name"],
    ];
    for (const [issuer, words] of refused) expect([issuer, rp_id_problem(issuer)]).toEqual([issuer, expect.stringContaining(words)]);
    expect(passkeys_usable({ passkeys: true, issuer: "https://id.example.com" })).toBe(true);
    expect(passkeys_usable({ passkeys: false, issuer: "https://id.example.com" })).toBe(false);
    expect(passkeys_usable({ passkeys: true, issuer: "http://127.0.0.1:3000" })).toBe(false);
  });
});

/** A browser signed in as `user` by a session made in the store. */
async function signed_in(t: TestProvider, user: UserRow): Promise<Browser> {
  const value = random_token(32);
  const now = t.clock.now();
  await t.store.create_session({ id_hash: sha256(value), user_id: user.id, auth_time: now, amr: ["pwd"], expires_at: now + 3600 });
  const browser = new Browser();
  browser.cookies.set("idp_session", value);
  return browser;
}

async function add_passkey(t: TestProvider, user: UserRow): Promise<void> {
  await t.store.create_passkey({
    credential_id: `cred-${random_token(16)}`,
    user_id: user.id,
    public_key: "AA",
    counter: 0,
    transports: ["internal"],
    backup_eligible: false,
    backup_state: false,
    aaguid: null,
    name: "Laptop",
  });
}

/** The page's script-src directive, or undefined when it has none. */
function script_src(response: Response): string | undefined {
  return (response.headers.get("content-security-policy") ?? "")
    .split(";")
    .map((directive) => directive.trim())
    .find((directive) => directive.startsWith("script-src"));
}

/** No trace of a passkey offer: no form, button, autofill hint or script. */
function expect_no_passkey_offer(html: string, response: Response): void {
  expect(html).not.toContain('id="passkey-form"');
  expect(html).not.toContain("Use a passkey");
  expect(html).not.toContain("Add a passkey");
  expect(html).not.toContain("webauthn");
  expect(html).not.toContain("<script");
  expect(script_src(response)).toBeUndefined();
}

describe("an IP-address issuer (http://127.0.0.1:<port>) with IDP_PASSKEYS on", () => {
  let t: TestProvider;
  beforeAll(async () => {
    t = await start_provider({ config: { require_2fa: "all" } });
  });
  afterAll(() => t.stop());

  test("the authorization request's sign-in page and the account's own offer no passkey", async () => {
    expect(t.issuer).toStartWith("http://127.0.0.1:");
    const browser = new Browser();
    const start = await browser.get(authorization_url(t, { code_challenge: pkce().challenge, code_challenge_method: "S256" }));
    const page = await browser.get(start.headers.get("location")!);
    const html = await page.text();
    expect(html).toContain('name="password"');
    expect_no_passkey_offer(html, page);
    const own = await new Browser().get(`${t.url}/account/login`);
    expect_no_passkey_offer(await own.text(), own);
  });

  test("the second step: enrolment offers the authenticator app only; a user whose factor is a passkey is told why it cannot be used", async () => {
    await t.add_user({ username: "enno" });
    const browser = new Browser();
    const step = await account_login(t, browser, "enno", t.password);
    const enrol = await browser.get(step.headers.get("location")!);
    const enrol_html = await enrol.text();
    expect(enrol_html).toContain("Add a second factor");
    expect(enrol_html).toContain("/enrol-totp");
    expect_no_passkey_offer(enrol_html, enrol);

    const paula = await t.add_user({ username: "paula" });
    await add_passkey(t, paula);
    const other = new Browser();
    const second = await account_login(t, other, "paula", t.password);
    expect(second.headers.get("location")).toEndWith("/two-factor");
    const page = await other.get(second.headers.get("location")!);
    const html = await page.text();
    expect_no_passkey_offer(html, page);
    expect(html).toContain(translator("en").t("passkey.unavailable"));
  });

  test("the account page: no passkey section without passkeys; with one, its list (to rename or remove) and no form to add", async () => {
    const plain = await t.add_user({ username: "anton" });
    const page = await (await signed_in(t, plain)).get(`${t.url}/account`);
    const html = await page.text();
    expect(html).toContain("Your account");
    expect(html).not.toContain('id="passkeys-heading"');
    expect_no_passkey_offer(html, page);

    const keeper = await t.add_user({ username: "kira" });
    await add_passkey(t, keeper);
    const listed = await (await signed_in(t, keeper)).get(`${t.url}/account`);
    const listed_html = await listed.text();
    expect(listed_html).toContain('id="passkeys-heading"');
    expect(listed_html).toContain("<h3>Laptop</h3>");
    expect_no_passkey_offer(listed_html, listed);
  });
});

describe("a domain-name issuer (http://localhost:<port>)", () => {
  let t: TestProvider;
  beforeAll(async () => {
    t = await start_provider({ issuer_host: "localhost" });
  });
  afterAll(() => t.stop());

  test("the sign-in page offers passkeys with our own files only, and the script's words in the page's language", async () => {
    const browser = new Browser();
    const start = await browser.get(authorization_url(t, { code_challenge: pkce().challenge, code_challenge_method: "S256" }));
    const page = await browser.get(start.headers.get("location")!.replace(t.issuer, t.url), { "accept-language": "fr" });
    const html = await page.text();
    expect(html).toContain('id="passkey-form"');
    expect(script_src(page)).toBe("script-src 'self'");
    const scripts = [...html.matchAll(/<script([^>]*)>/g)].map((m) => m[1]);
    expect(scripts).toEqual([` src="${t.issuer}/static/vendor/simplewebauthn-browser.js" defer`, ` src="${t.issuer}/static/passkeys.js" defer`]);
    const fr = translator("fr");
    const status = /<p class="hint" id="passkey-status"[^>]*>/.exec(html)![0];
    const attribute = (name: string) =>
      new RegExp(`\\s${name}="([^"]*)"`)
        .exec(status)?.[1]
        ?.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)))
        .replace(/&quot;/g, '"')
        .replace(/&amp;/g, "&");
    for (const [name, key] of [
      ["data-failed", "passkey.failed"],
      ["data-not-started", "passkey.not_started"],
      ["data-cancelled", "passkey.cancelled"],
      ["data-working-use", "passkey.working_use"],
    ] as const) {
      expect([name, attribute(name)]).toEqual([name, fr.t(key)]);
    }
    expect(fr.t("passkey.failed")).not.toBe(translator("en").t("passkey.failed"));
    expect(hidden_field(html, "csrf")).toBeTruthy();
  });
});
