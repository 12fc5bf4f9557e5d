/**
 * The pages' language through real HTTP (README, "Languages"): ui_locales (OIDC Core §3.1.2.1)
 * first, then the signed-in user's saved choice, then the switcher's cookie, then
 * Accept-Language, then IDP_DEFAULT_LOCALE. Discovery advertises ui_locales_supported and no
 * claims_locales_supported (claims are stored in one language); claims_locales is accepted.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { Browser, account_login, account_page, authorize, form_action, hidden_field } from "../helpers/browser.ts";
import { authorization_url, pkce } from "../helpers/flow.ts";
import { REDIRECT_URI, start_provider, type TestProvider } from "../helpers/provider.ts";
import { load_config } from "../../src/app/config.ts";
import { settle_password_reset_requests } from "../../src/oidc/accounts/password_reset.ts";

let t: TestProvider;
let german: TestProvider;
beforeAll(async () => {
  t = await start_provider();
  german = await start_provider({ config: { default_locale: "de" } });
});
afterAll(async () => {
  await t.stop();
  await german.stop();
});

/** The login page of a new authorization in `browser`. */
async function login_page(browser: Browser, params: Record<string, string> = {}, headers?: Record<string, string>, p: TestProvider = t): Promise<string> {
  const challenge = pkce();
  const start = await browser.get(authorization_url(p, { code_challenge: challenge.challenge, code_challenge_method: "S256", ...params }), headers);
  expect(start.status).toBe(302);
  const page = await browser.get(new URL(start.headers.get("location")!, p.url).href, headers);
  expect(page.status).toBe(200);
  return page.text();
}

/** The text a person reads: tags and script-free markup removed. */
function visible(html: string): string {
  return html
    .replace(/<title>[\s\S]*?<\/title>/, "")
    .replace(/<[^>]+>/g, " ")
    .replace(/\s+/g, " ");
}

describe("discovery", () => {
  test("advertises ui_locales_supported (every catalog) and no claims_locales_supported", async () => {
    const meta = (await (await fetch(`${t.url}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    expect(meta.ui_locales_supported).toEqual(["en", "de", "es", "fr", "ja"]);
    expect(meta).not.toHaveProperty("claims_locales_supported");
  });
});

describe("ui_locales", () => {
  test("ui_locales=fr gives a French sign-in page: lang, title, labels, button", async () => {
    const html = await login_page(new Browser(), { ui_locales: "fr" });
    expect(html).toContain('<html lang="fr" dir="ltr">');
    expect(html).toContain("<title>Connexion · ");
    expect(html).toContain('<label for="username">Nom d&#39;utilisateur</label>');
    expect(html).toContain(">Se connecter</button>");
    expect(visible(html)).toContain("pour continuer vers Test App");
    expect(visible(html)).not.toContain("Username");
  });

  test("the first supported tag wins: an unknown one is skipped, a region falls back to its language", async () => {
    expect(await login_page(new Browser(), { ui_locales: "tlh fr-CA de" })).toContain('<html lang="fr"');
    expect(await login_page(new Browser(), { ui_locales: "xx ja" })).toContain('<html lang="ja"');
  });

  test("ui_locales outranks Accept-Language and the switcher's cookie", async () => {
    const browser = new Browser();
    browser.cookies.set("idp_locale", "es");
    const html = await login_page(browser, { ui_locales: "de" }, { "accept-language": "ja" });
    expect(html).toContain('<html lang="de"');
    expect(html).toContain(">Anmelden</button>");
  });

  test("it stays for the whole interaction: the wrong-password message and the consent page are French", async () => {
    const browser = new Browser();
    const html = await login_page(browser, { ui_locales: "fr", scope: "openid profile" });
    const wrong = await browser.post(form_action(html)!, { csrf: hidden_field(html, "csrf")!, username: "alice", password: "nope" });
    expect(await wrong.text()).toContain("Nom d&#39;utilisateur ou mot de passe incorrect.");
    const ok = await browser.post(form_action(html)!, { csrf: hidden_field(html, "csrf")!, username: "alice", password: t.password });
    expect(ok.status).toBe(303);
    const consent = await browser.get(new URL(ok.headers.get("location")!, t.url).href);
    const consent_html = await consent.text();
    expect(consent_html).toContain('<html lang="fr"');
    expect(consent_html).toContain("Voir votre profil de base");
    expect(consent_html).toContain(">Autoriser</button>");
  });

  test("claims_locales is accepted and the flow completes", async () => {
    const p = pkce();
    const url = authorization_url(t, { code_challenge: p.challenge, code_challenge_method: "S256", ui_locales: "ja", claims_locales: "fr" });
    const { callback, steps } = await authorize(new Browser(), url, { password: t.password, callback_prefix: REDIRECT_URI });
    expect(steps).toEqual(["login", "consent"]);
    expect(callback.searchParams.get("code")).toBeTruthy();
  });

  test("ui_locales at the end_session_endpoint is accepted", async () => {
    const response = await fetch(`${t.url}/logout?ui_locales=${encodeURIComponent("ja en")}`, { headers: { accept: "text/html" }, redirect: "manual" });
    expect(response.status).toBeLessThan(400);
  });
});

describe("Accept-Language and the default", () => {
  test("the highest q-value with a catalog wins; q=0 is never chosen", async () => {
    expect(await login_page(new Browser(), {}, { "accept-language": "it;q=1, es;q=0.8, de;q=0.9" })).toContain('<html lang="de"');
    expect(await login_page(new Browser(), {}, { "accept-language": "ja;q=0, es-MX;q=0.5" })).toContain('<html lang="es"');
  });

  test("nothing usable: the operator's default (IDP_DEFAULT_LOCALE)", async () => {
    expect(await login_page(new Browser(), {}, { "accept-language": "it, nl" })).toContain('<html lang="en"');
    const html = await login_page(new Browser(), {}, { "accept-language": "it" }, german);
    expect(html).toContain('<html lang="de"');
    expect(html).toContain("Sichere Anmeldung");
  });

  test("the error page follows Accept-Language too", async () => {
    const response = await fetch(`${t.url}/no-such-page`, { headers: { accept: "text/html", "accept-language": "ja" } });
    expect(response.status).toBe(404);
    const html = await response.text();
    expect(html).toContain('<html lang="ja"');
    expect(html).toContain("ページが見つかりません");
  });

  test("a default without a catalog is refused at start, naming the setting", () => {
    expect(() => load_config({ IDP_DEFAULT_LOCALE: "tlh" })).toThrow(/default_locale \(IDP_DEFAULT_LOCALE\): no catalog for "tlh"/);
    expect(() => load_config({ IDP_DEFAULT_LOCALE: "not a tag" })).toThrow(/IDP_DEFAULT_LOCALE/);
    expect(load_config({ IDP_DEFAULT_LOCALE: "FR-ca" }).default_locale).toBe("fr");
  });
});

describe("the switcher", () => {
  test("every page carries it, without script: a form posting to /locale with the page to return to", async () => {
    const html = await login_page(new Browser());
    const form = /<form method="post" action="([^"]+)" class="locale-switcher">([\s\S]*?)<\/form>/.exec(html);
    expect(form?.[1]).toBe(`${t.issuer}/locale`);
    expect(form?.[2]).toContain('name="return_to" value="/interaction/');
    expect(form?.[2]).toContain('<option value="ja" lang="ja">日本語</option>');
    expect(form?.[2]).not.toContain('name="csrf"');
  });

  test("a visitor's choice is a cookie: later pages follow it, over Accept-Language", async () => {
    const browser = new Browser();
    const answer = await browser.post(`${t.url}/locale`, { locale: "es", return_to: "/account/login" });
    expect(answer.status).toBe(303);
    expect(answer.headers.get("location")).toBe(`${t.issuer}/account/login`);
    expect(answer.headers.get("set-cookie")).toMatch(/^idp_locale=es; .*HttpOnly/);
    const page = await browser.get(`${t.url}/account/login`, { "accept-language": "de" });
    expect(await page.text()).toContain('<html lang="es"');
  });

  test("no open redirect, and an unknown language is refused naming the field", async () => {
    const browser = new Browser();
    for (const return_to of ["https://evil.example/", "//evil.example/x", "/\\evil.example"]) {
      const answer = await browser.post(`${t.url}/locale`, { locale: "fr", return_to });
      expect(answer.headers.get("location")).toBe(`${t.issuer}/account`);
    }
    const refused = await new Browser().post(`${t.url}/locale`, { locale: "xx", return_to: "/account" });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain("locale: must be one of en, de, es, fr, ja");
    expect(refused.headers.get("set-cookie")).toBeNull();
  });

  test("signed in: the choice is saved with the account form token, and follows the user to another browser", async () => {
    const user = await t.add_user({ username: "polyglot", email: "polyglot@example.com", email_verified: true });
    const first = new Browser();
    expect((await account_login(t, first, "polyglot", t.password)).status).toBe(303);
    const { html, csrf } = await account_page(t, first);
    expect(/class="locale-switcher">[\s\S]*name="csrf"/.test(html)).toBe(true);
    // Without the token: the cookie changes, the account does not (a cross-site form cannot change it).
    await first.post(`${t.url}/locale`, { locale: "ja", return_to: "/account" });
    expect((await t.store.get_user_by_id(user.id))!.locale).toBeNull();
    // A wrong token is refused.
    expect((await first.post(`${t.url}/locale`, { locale: "ja", return_to: "/account", csrf: "forged" })).status).toBe(403);
    expect((await first.post(`${t.url}/locale`, { locale: "fr", return_to: "/account", csrf })).status).toBe(303);
    expect((await t.store.get_user_by_id(user.id))!.locale).toBe("fr");
    // Another browser, another language asked: the saved choice wins once signed in.
    const second = new Browser();
    await account_login(t, second, "polyglot", t.password);
    const page = await second.get(`${t.url}/account`, { "accept-language": "de" });
    const account_html = await page.text();
    expect(account_html).toContain('<html lang="fr"');
    expect(account_html).toContain("Votre compte");
  });
});

describe("mail", () => {
  /** The newest mail to `recipient`, with its bodies. */
  async function last_mail(recipient: string) {
    const summary = (await t.store.list_mail({ limit: 100 }))
      .filter((mail) => mail.recipient === recipient)
      .sort((a, b) => b.created_at - a.created_at || (b.id > a.id ? 1 : -1))[0];
    return summary === undefined ? null : t.store.get_mail(summary.id);
  }

  async function forgot(browser: Browser, identifier: string, headers: Record<string, string>): Promise<void> {
    const page = await browser.get(`${t.url}/password/forgot`, headers);
    const html = await page.text();
    const answer = await browser.request("POST", `${t.url}/password/forgot`, { form: { csrf: hidden_field(html, "csrf")!, identifier }, headers });
    expect(answer.status).toBeLessThan(400);
    // The lookup and the mail run after the answer (no enumeration by timing).
    await settle_password_reset_requests();
  }

  test("no saved choice: the mail is in the language of the request that caused it", async () => {
    await t.add_user({ username: "mailde", email: "mailde@example.com", email_verified: true, name: "Max" });
    await forgot(new Browser(), "mailde", { "accept-language": "de" });
    const mail = (await last_mail("mailde@example.com"))!;
    expect(mail.subject).toBe(`Passwort für ${new URL(t.issuer).host} zurücksetzen`);
    expect(mail.text).toContain("Hallo Max,");
    expect(mail.html).toContain('<html lang="de">');
    expect(mail.html).toContain(">Neues Passwort festlegen</a>");
  });

  test("the recipient's saved choice wins over the request's language", async () => {
    await t.add_user({ username: "mailja", email: "mailja@example.com", email_verified: true, locale: "ja" });
    await forgot(new Browser(), "mailja", { "accept-language": "fr" });
    const mail = (await last_mail("mailja@example.com"))!;
    expect(mail.subject).toBe(`${new URL(t.issuer).host}のパスワードの再設定`);
    expect(mail.text).toContain("こんにちは。");
    expect(mail.html).toContain('<html lang="ja">');
  });
});
