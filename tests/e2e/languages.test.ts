/**
 * The pages in other languages, in Chromium (README, "Languages"):
 * - sign-in and consent in German (the browser's Accept-Language) and Japanese (ui_locales,
 *   OIDC Core §3.1.2.1) on a 360 px wide screen: nothing scrolls sideways, axe-core finds no
 *   serious violation, screenshots go to test-artifacts/screenshots/;
 * - a French user of a German operator's branded provider (IDP_DEFAULT_LOCALE=de,
 *   IDP_BRAND_NAME, the example theme of examples/theme/) signs in, consents, manages their
 *   account (its sessions list: "Chrome sous Linux"), meets an error page raised by the rules,
 *   switches the language with the switcher (no script) — and never reads a sentence of the
 *   English catalog (every key, the rules' messages included);
 * - the admin console in French, its user page's <title> included.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { CATALOGS } from "../../src/platform/locales.ts";
import { TEXT_MISSES } from "../../src/oidc/ui/catalogs.ts";
import { totp_code, totp_step } from "../../src/oidc/signin/totp.ts";
import { axe, chromium_available, launch, overflow, screenshots, serious } from "../helpers/chromium.ts";
import { authorization_url, pkce } from "../helpers/flow.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";

const NARROW = { width: 360, height: 740 };
const ADMIN_SECRET = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP";
const BRAND = "Müller Werke";
const EXAMPLE_THEME = join(import.meta.dirname, "../../examples/theme");
let root_id: string;

let t: TestProvider;
let browser: Browser;

beforeAll(async () => {
  if (!chromium_available) return;
  t = await start_provider({ config: { default_locale: "de", brand: { name: BRAND, color: "#0b5d3b", theme_dir: EXAMPLE_THEME } } });
  await t.add_user({ username: "amelie", name: "Amélie Durand", email: "amelie@example.com", email_verified: true });
  const root = await t.add_user({ username: "racine", totp_secret: ADMIN_SECRET, totp_enabled_at: t.clock.now() - 120 });
  root_id = root.id;
  const admins = await t.store.create_group({ name: "admins", description: null });
  await t.store.add_group_member(admins.id, root.id, t.clock.now());
  browser = await launch();
  // Only this file's pages count (other test files in the same run ask for texts of their own).
  TEXT_MISSES.clear();
}, 90_000);

afterAll(async () => {
  if (!chromium_available) return;
  await browser.close();
  await t.stop();
});

function start_url(params: Record<string, string> = {}): string {
  const p = pkce();
  return authorization_url(t, { scope: "openid profile email", code_challenge: p.challenge, code_challenge_method: "S256", ...params });
}

/** No sideways scrolling at 360 px, axe clean in light and dark, screenshots. */
async function check(page: Page, name: string): Promise<void> {
  await page.setViewportSize(NARROW);
  expect({ page: name, overflow: await overflow(page) }).toEqual({ page: name, overflow: 0 });
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme, reducedMotion: "reduce" });
    expect({ page: name, scheme, problems: serious(await axe(page)) }).toEqual({ page: name, scheme, problems: [] });
  }
  await page.emulateMedia({ colorScheme: "light", reducedMotion: "reduce" });
  await page.screenshot({ path: `${import.meta.dirname}/../../test-artifacts/screenshots/${name}-360.png`, fullPage: true });
  await screenshots(page, name);
  await page.setViewportSize(NARROW);
}

/** axe is injected as a script, which the CSP forbids: these contexts bypass it for this check only. */
function context(locale: string): Promise<BrowserContext> {
  return browser.newContext({ bypassCSP: true, reducedMotion: "reduce", locale, viewport: NARROW });
}

/** English catalog sentences that the page's catalog says otherwise, at least a few letters long. */
function english_sentences(locale: string): string[] {
  const english = CATALOGS.en!;
  const other = CATALOGS[locale]!;
  return Object.entries(english)
    .filter(([key, value]) => value !== other[key] && value.replace(/\{[^}]*\}|<[^>]*>/g, "").trim().length >= 6)
    .flatMap(([, value]) =>
      value
        .split(/\{[^}]*\}|<[^>]*>/)
        .map((part) => part.trim())
        .filter((part) => part.length >= 6 && /\s/.test(part)),
    );
}

async function no_english(page: Page, name: string, locale: string): Promise<void> {
  const text = await page.evaluate(
    () =>
      document.documentElement.innerText +
      " " +
      document.title +
      " " +
      [...document.querySelectorAll("[aria-label],[alt],[title]")].map((e) => e.getAttribute("aria-label") ?? e.getAttribute("alt") ?? e.getAttribute("title")).join(" "),
  );
  // Whole words only: "· Admin" is not in "· Administration".
  const found = english_sentences(locale).filter((sentence) => new RegExp(`(?<!\\p{L})${sentence.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?!\\p{L})`, "u").test(text));
  expect({ page: name, english: found }).toEqual({ page: name, english: [] });
}

describe.skipIf(!chromium_available)("other languages in the browser", () => {
  test("German (Accept-Language): sign-in and consent at 360 px", async () => {
    const ctx = await context("de-DE");
    const page = await ctx.newPage();
    await page.goto(start_url());
    expect(await page.getAttribute("html", "lang")).toBe("de");
    await check(page, "lang-de-login");
    await page.getByLabel("Benutzername").fill("amelie");
    await page.getByLabel("Passwort").fill(t.password);
    await page.getByRole("button", { name: "Anmelden" }).click();
    await page.waitForURL(/\/consent$/);
    await expect(page.getByRole("button", { name: "Zulassen" })).toBeTruthy();
    await check(page, "lang-de-consent");
    await no_english(page, "de consent", "de");
    await ctx.close();
  }, 90_000);

  test("Japanese (ui_locales=ja over an English browser): sign-in and consent at 360 px", async () => {
    const ctx = await context("en-US");
    const page = await ctx.newPage();
    await page.goto(start_url({ ui_locales: "ja" }));
    expect(await page.getAttribute("html", "lang")).toBe("ja");
    await check(page, "lang-ja-login");
    await page.getByLabel("ユーザー名").fill("amelie");
    await page.getByLabel("パスワード").fill("wrong password");
    await page.getByRole("button", { name: "サインイン" }).click();
    await page.getByRole("alert").waitFor();
    expect(await page.getByRole("alert").innerText()).toBe("ユーザー名またはパスワードが正しくありません。");
    await check(page, "lang-ja-login-error");
    await page.getByLabel("パスワード").fill(t.password);
    await page.getByRole("button", { name: "サインイン" }).click();
    await page.waitForURL(/\/consent$/);
    await check(page, "lang-ja-consent");
    await no_english(page, "ja consent", "ja");
    await ctx.close();
  }, 90_000);

  test("a French user of a German operator's branded provider: sign-in, consent, account, an error, switcher — no English", async () => {
    const ctx = await context("fr-FR");
    const page = await ctx.newPage();
    await page.goto(start_url());
    expect(await page.getAttribute("html", "lang")).toBe("fr");
    // The operator's theme (examples/theme/login.eta) speaks the user's language too.
    expect(await page.getByRole("heading", { level: 1 }).innerText()).toBe(`Bienvenue sur ${BRAND}`);
    expect(await page.innerText("body")).toContain("Un problème pour vous connecter ? Contactez le support informatique.");
    await no_english(page, "fr login", "fr");
    await page.getByLabel("Nom d'utilisateur").fill("amelie");
    await page.getByLabel("Mot de passe").fill(t.password);
    await page.getByRole("button", { name: "Se connecter" }).click();
    await page.waitForURL(/\/consent$/);
    await no_english(page, "fr consent", "fr");
    await page.getByRole("button", { name: "Autoriser" }).click();
    await page.waitForURL((url) => url.href.startsWith("https://rp.example.com/callback"), { waitUntil: "commit" }).catch(() => undefined);

    await page.goto(`${t.url}/account`);
    expect(await page.getAttribute("html", "lang")).toBe("fr");
    await page.getByRole("heading", { name: "Votre compte" }).waitFor();
    expect(await page.innerText("body")).toContain("Applications autorisées");
    // The sessions list: "on" is the catalog's, the product names stay as they are.
    expect(await page.innerText("body")).toContain("Chrome sous Linux");
    await no_english(page, "fr account", "fr");
    await check(page, "lang-fr-account");

    // A wrong current password: the refusal is French too.
    await page.getByLabel("Mot de passe actuel").fill("not my password");
    await page.getByLabel("Nouveau mot de passe", { exact: true }).fill("a brand new passphrase here");
    await page.getByLabel("Confirmez le nouveau mot de passe").fill("a brand new passphrase here");
    await page.getByRole("button", { name: "Changer le mot de passe" }).click();
    await page.getByRole("alert").waitFor();
    expect(await page.getByRole("alert").innerText()).toBe("Votre mot de passe actuel n'est pas correct.");
    await no_english(page, "fr account error", "fr");

    // An error page the rules raise (a link that does not work): title and words from the catalog.
    await page.goto(`${t.url}/email/confirm?token=${"A".repeat(43)}`);
    await page.getByRole("heading", { name: "Ce lien de confirmation ne fonctionne pas" }).waitFor();
    expect(await page.innerText("body")).toContain("Modifiez à nouveau votre adresse e-mail depuis la page de votre compte");
    await no_english(page, "fr rules error", "fr");
    await page.goto(`${t.url}/account`);

    // The switcher, without script: Deutsch is saved for the account.
    await page.getByLabel("Langue").selectOption("de");
    await page.getByRole("button", { name: "Changer de langue" }).click();
    await page.waitForURL(/\/account$/);
    expect(await page.getAttribute("html", "lang")).toBe("de");
    await page.getByRole("heading", { name: "Ihr Konto" }).waitFor();
    const user = (await t.store.find_users_by_email("amelie@example.com"))[0]!;
    expect(user.locale).toBe("de");
    await ctx.close();
  }, 120_000);

  test("the admin console in French: navigation, headings, forms, no English sentence", async () => {
    const ctx = await context("fr-FR");
    const page = await ctx.newPage();
    await page.goto(`${t.url}/admin`);
    await page.getByLabel("Nom d'utilisateur").fill("racine");
    await page.getByLabel("Mot de passe").fill(t.password);
    await page.getByRole("button", { name: "Se connecter" }).click();
    await page.getByLabel("Code à 6 chiffres").fill(totp_code(ADMIN_SECRET, totp_step(t.clock.now())));
    await page.getByRole("button", { name: "Valider" }).click();
    await page.waitForURL(/\/admin$/);
    expect(await page.getAttribute("html", "lang")).toBe("fr");
    await page.getByRole("heading", { name: "Tableau de bord" }).waitFor();
    await no_english(page, "fr admin dashboard", "fr");
    for (const [path, heading] of [
      ["/admin/users", "Utilisateurs"],
      ["/admin/groups", "Groupes"],
      ["/admin/clients", "Applications"],
      ["/admin/keys", "Clés de signature"],
      ["/admin/audit", "Journal d'audit"],
    ] as const) {
      await page.goto(`${t.url}${path}`);
      await page.getByRole("heading", { name: heading, exact: true }).waitFor();
      await no_english(page, `fr admin ${path}`, "fr");
    }
    // A user's page: its <title>, heading and sessions list.
    await page.goto(`${t.url}/admin/users/${root_id}`);
    await page.getByRole("heading", { name: "Utilisateur racine" }).waitFor();
    expect(await page.title()).toBe(`Utilisateur racine · Administration · ${BRAND}`);
    expect(await page.innerText("body")).toContain("Chrome sous Linux");
    await no_english(page, "fr admin user", "fr");
    // A confirmation page (its danger zone), and one that refuses, saying why.
    await page.goto(`${t.url}/admin/users/${root_id}/confirm?action=end_sessions`);
    await page.getByRole("heading", { name: "Zone de danger" }).waitFor();
    await no_english(page, "fr admin confirmation", "fr");
    await page.goto(`${t.url}/admin/users/${root_id}/confirm?action=delete`);
    expect(await page.getByRole("alert").innerText()).toBe("Vous ne pouvez pas supprimer votre propre compte : un autre administrateur doit le faire.");
    await no_english(page, "fr admin refused confirmation", "fr");
    await ctx.close();
  }, 120_000);

  test("every English text the pages above asked the catalog for had a key", () => {
    expect([...TEXT_MISSES]).toEqual([]);
  });
});
