/**
 * The message catalogs (locales/<language>.json) and the templates that use them:
 * - every catalog has exactly English's keys, each message parses as ICU MessageFormat and has
 *   the same placeholders and tags as English's;
 * - every catalog file is embedded (src/platform/locales.ts), every key a template names exists;
 * - no template (views/, and the example theme in examples/theme/) has visible text or an
 *   alt/title/aria-label/placeholder outside `t(...)`;
 * - the English messages the rules make (scopes, claims, notices, password policy) are found
 *   by `text()`, so they reach the page translated;
 * - negotiation: Accept-Language q-values, region fallback.
 */
import { describe, expect, test } from "../../helpers/test_api.ts";
import { IntlMessageFormat } from "intl-messageformat";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { CATALOGS } from "../../../src/platform/locales.ts";
import { BASE_LOCALE, LOCALES, TEXT_MISSES, choose_locale, parse_accept_language, supported_locale, translator } from "../../../src/oidc/ui/catalogs.ts";
import { SCOPE_DESCRIPTIONS } from "../../../src/oidc/claims/scopes.ts";
import { CLAIM_DESCRIPTIONS, describe_claims } from "../../../src/oidc/claims/request.ts";
import { NOTICES } from "../../../src/http/pages/account.ts";
import { WRONG_CREDENTIALS } from "../../../src/oidc/signin/password.ts";
import { check_password_policy, password_policy_hint } from "../../../src/oidc/accounts/password_policy.ts";
import { load_config } from "../../../src/app/config.ts";

const ROOT = join(import.meta.dirname, "../../..");
const VIEWS = join(ROOT, "views");

/**
 * Templates not converted yet; each is a known gap (README, "Languages"), and the list only
 * shrinks: the test fails when a listed file has become clean or no longer exists.
 */
const PENDING: readonly string[] = [];

type Shape = { names: string[]; tags: string[] };

/** The placeholders and tags of an ICU message (raises when it does not parse). */
function shape(message: string, locale: string): Shape {
  const names = new Set<string>();
  const tags = new Set<string>();
  const walk = (elements: unknown[]) => {
    for (const element of elements as { type: number; value?: string; options?: Record<string, { value: unknown[] }>; children?: unknown[] }[]) {
      if ([1, 2, 3, 4, 5, 6].includes(element.type) && element.value) names.add(element.value);
      if (element.type === 8) {
        tags.add(element.value!);
        walk(element.children ?? []);
      }
      for (const option of Object.values(element.options ?? {})) walk(option.value);
    }
  };
  walk(new IntlMessageFormat(message, locale).getAst() as unknown[]);
  return { names: [...names].sort(), tags: [...tags].sort() };
}

/** The example theme shows operators how a theme's templates are written: it is held to the same rule. */
const EXAMPLE_THEME = join(ROOT, "examples/theme");

function templates(): { name: string; text: string }[] {
  return [VIEWS, EXAMPLE_THEME]
    .flatMap((folder) =>
      readdirSync(folder, { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile() && entry.name.endsWith(".eta"))
        .map((entry) => {
          const path = join(entry.parentPath, entry.name);
          return { name: folder === VIEWS ? relative(VIEWS, path) : relative(ROOT, path), text: readFileSync(path, "utf8") };
        }),
    )
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** Text a template shows that does not come from the catalog: visible text and the readable attributes. */
function literals(template: string): string[] {
  const html = template
    .replace(/<%[\s\S]*?%>/g, "\u0000")
    .replace(/<script[\s\S]*?<\/script>/g, "")
    .replace(/<style[\s\S]*?<\/style>/g, "")
    .replace(/<!--[\s\S]*?-->/g, "");
  const found: string[] = [];
  // Punctuation, symbols and an Eta output between them are not words.
  // A path after an output (`<%= it.issuer %>/account`) is part of a URL, not a word.
  const wordy = (text: string) =>
    /\p{L}/u.test(
      text
        .replace(/\u0000\/[\w/.-]*/g, "")
        .replace(/\u0000/g, "")
        .replace(/&[a-z]+;|&#\d+;/g, ""),
    );
  for (const tag of html.match(/<[a-zA-Z][^>]*>/g) ?? []) {
    for (const match of tag.matchAll(/\b(alt|title|aria-label|placeholder)="([^"]*)"/g)) if (wordy(match[2]!)) found.push(`${match[1]}="${match[2]}"`);
  }
  for (const text of html.replace(/<[^>]*>/g, "\u0001").split("\u0001")) if (wordy(text)) found.push(text.replace(/\u0000/g, "").trim());
  return found;
}

describe("catalogs", () => {
  const english = CATALOGS[BASE_LOCALE]!;

  test("the languages: English first, then the others; every file in locales/ is embedded", () => {
    expect(LOCALES[0]).toBe("en");
    expect([...LOCALES].sort()).toEqual(["de", "en", "es", "fr", "ja"]);
    const files = readdirSync(join(ROOT, "locales"))
      .filter((name) => name.endsWith(".json"))
      .map((name) => name.slice(0, -5));
    expect([...files].sort()).toEqual([...LOCALES].sort());
  });

  for (const locale of LOCALES) {
    test(`${locale}: exactly English's keys, every message ICU, the same placeholders and tags`, () => {
      const catalog = CATALOGS[locale]!;
      expect({ locale, missing: Object.keys(english).filter((key) => !(key in catalog)) }).toEqual({ locale, missing: [] });
      expect({ locale, extra: Object.keys(catalog).filter((key) => !(key in english)) }).toEqual({ locale, extra: [] });
      const differing: string[] = [];
      for (const [key, message] of Object.entries(catalog)) {
        expect(typeof message).toBe("string");
        expect(message.trim()).not.toBe("");
        if (JSON.stringify(shape(message, locale)) !== JSON.stringify(shape(english[key]!, "en"))) differing.push(key);
      }
      expect({ locale, differing }).toEqual({ locale, differing: [] });
    });
  }

  test("Japanese messages have no space between Japanese characters", () => {
    const spaced = Object.entries(CATALOGS.ja!).filter(([, message]) => /[\u3040-\u30ff\u4e00-\u9fff][ ]+[\u3040-\u30ff\u4e00-\u9fff]/.test(message));
    expect(spaced).toEqual([]);
  });

  test("every key a template names is in the English catalog", () => {
    const missing: string[] = [];
    for (const { name, text } of templates()) {
      for (const match of text.matchAll(/it\.(?:t|tr\.html)\("([^"]+)"/g)) if (!(match[1]! in english)) missing.push(`${name}: ${match[1]}`);
    }
    expect(missing).toEqual([]);
  });
});

describe("templates", () => {
  test("no visible text or readable attribute outside the catalog", () => {
    const problems: Record<string, string[]> = {};
    for (const { name, text } of templates()) {
      if (PENDING.includes(name)) continue;
      const found = literals(text);
      if (found.length > 0) problems[name] = found;
    }
    expect(problems).toEqual({});
  });

  test("the pending list only shrinks: each listed template exists and still has literals", () => {
    const all = new Map(templates().map(({ name, text }) => [name, text]));
    for (const name of PENDING) {
      expect({ name, exists: all.has(name) }).toEqual({ name, exists: true });
      expect({ name, clean: literals(all.get(name)!).length === 0 }).toEqual({ name, clean: false });
    }
  });

  test("the example theme's templates are scanned too", () => {
    const names = templates().map(({ name }) => name);
    expect(names).toContain("examples/theme/login.eta");
    expect(names).toContain("examples/theme/partials/help.eta");
  });

  test("the scanner finds a literal text node, attribute, and accepts punctuation and outputs", () => {
    expect(literals("<p>Hello <%= it.name %></p>")).toEqual(["Hello"]);
    expect(literals('<img alt="A logo" src="<%= it.src %>">')).toEqual(['alt="A logo"']);
    expect(literals('<p><%= it.t("a") %> · <%= it.site %></p><input aria-label="<%= it.t("b") %>">')).toEqual([]);
  });
});

describe("messages the rules make reach the page translated", () => {
  const fr = translator("fr");
  const rules = { min_length: 10, max_length: 128 } as Parameters<typeof check_password_policy>[2];

  test("scopes, claims (with the required mark), notices, wrong credentials", () => {
    const english = [...Object.values(SCOPE_DESCRIPTIONS), ...Object.values(CLAIM_DESCRIPTIONS), ...Object.values(NOTICES), WRONG_CREDENTIALS];
    const untranslated = english.filter((text) => fr.text(text) === text);
    expect(untranslated).toEqual([]);
    const required = describe_claims({ id_token: { email: { essential: true } }, userinfo: {} } as never, ["email"])[0]!;
    expect(fr.text(required)).toBe("Votre adresse e-mail (exigé par l'application)");
  });

  test("the password policy: its hint and each refusal, with the numbers in place", () => {
    expect(fr.text(password_policy_hint({ ...load_config({}).passwords, min_length: 12 }))).toStartWith("Au moins 12 caractères");
    const refusal = check_password_policy("short", { username: "ada", email: null }, { ...load_config({}).passwords, ...rules })!;
    expect(fr.text(refusal)).toBe("Le mot de passe est trop court : utilisez au moins 10 caractères.");
    expect(translator("ja").text(refusal)).toBe("パスワードが短すぎます。10文字以上にしてください。");
  });

  test("every English message the rules and endpoints put on a page is in the catalog", () => {
    // The literal messages of PageError, the form-token and link refusals, and the words an
    // endpoint hands a page (heading, message, notice, error, button, link text, title); a
    // `${…}` becomes a sample value, as it would on the page. Protocol error_description strings
    // and the admin API's problem documents are for developers and stay English, as do the reports
    // of `idp import --from` (foreign_import/) and webhook payloads (webhooks/).
    const SKIP = [/\/demo\//, /\/endpoints\/admin\//, /\/oidc\/clients\/fapi\.ts$/, /\/oidc\/admin\//, /\/oidc\/foreign_import\//, /\/oidc\/webhooks\//];
    const LITERAL = String.raw`("(?:[^"\\]|\\.)*"|\x60(?:[^\x60\\]|\\.)*\x60)`;
    const SITE = String.raw`(?:new PageError\(\s*|\b(?:expired_form|invalid_logout)\(\s*|check_page_form\([^;]*?,\s*|\b(?:heading|message|notice|error|title|button|text|again|advice): |(?:layout_values|console_values)\(idp, (?:[^,()]+, [^,()]+, )?)`;
    const pattern = new RegExp(`${SITE}${LITERAL}(?:\\s*,\\s*${LITERAL})?`, "g");
    const untranslated: string[] = [];
    let checked = 0;
    for (const folder of ["src/oidc", "src/http"]) {
      for (const entry of readdirSync(join(ROOT, folder), { recursive: true, withFileTypes: true })) {
        const path = join(entry.parentPath, entry.name);
        if (!entry.isFile() || !entry.name.endsWith(".ts") || SKIP.some((skip) => skip.test(path))) continue;
        const source = readFileSync(path, "utf8")
          .replace(/\/\*[\s\S]*?\*\//g, "")
          .replace(/^\s*\/\/.*$/gm, "");
        for (const match of source.matchAll(pattern)) {
          for (const literal of [match[1], match[2]]) {
            // A choice inside a template literal is one of several catalog messages (signed_out.ts): tested by the page.
            if (literal === undefined || /\$\{[^}]*\?/.test(literal)) continue;
            const text = literal.slice(1, -1).replace(/\$\{[^}]*\}/g, "Xyz");
            if (!/^["“A-Za-z].* [a-z]/.test(text)) continue;
            checked += 1;
            if (fr.text(text) === text) untranslated.push(`${relative(ROOT, path)}: ${text}`);
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(80);
    expect(untranslated).toEqual([]);
  });

  test("messages made of pieces: the e-mail change's “instead of”, a broken link's advice", () => {
    expect(fr.text("Use new@example.com for the account ada instead of old@example.com? Nothing changes until you press the button.")).toBe(
      "Utiliser new@example.com au lieu de old@example.com pour le compte ada ? Rien ne change tant que vous n'appuyez pas sur le bouton.",
    );
    expect(translator("de").text("Use new@example.com for the account ada? Nothing changes until you press the button.")).toBe(
      "new@example.com für das Konto ada verwenden? Nichts ändert sich, bevor Sie die Schaltfläche drücken.",
    );
    expect(fr.text("The link was already used, has expired, or a newer one was sent since. Sign in to ask for a new one.")).toBe(
      "Le lien a déjà été utilisé, a expiré, ou un plus récent a été envoyé depuis. Connectez-vous pour en demander un nouveau.",
    );
    expect(
      translator("ja").text("Signing in with Acme does not work right now: it did not answer, or answered something we could not use. Try again later, or sign in another way."),
    ).toStartWith("現在、Acmeでのサインイン");
  });

  test("an unknown text is left as it is; values are escaped by html(), tags kept", () => {
    expect(fr.text("Something nobody wrote")).toBe("Something nobody wrote");
    // Counted as a miss (tests/e2e/languages.test.ts reads them); a text already French is not one.
    expect(TEXT_MISSES.has("Something nobody wrote")).toBe(true);
    fr.text("Ce lien de confirmation ne fonctionne pas");
    expect(TEXT_MISSES.has("Ce lien de confirmation ne fonctionne pas")).toBe(false);
    expect(fr.html("login.lead", { client: "<b>A&B</b>" })).toBe("pour continuer vers <strong>&lt;b&gt;A&amp;B&lt;/b&gt;</strong>");
    expect(fr.t("login.lead", { client: "X" })).toBe("pour continuer vers X");
  });

  test("plurals and dates in the page's language", () => {
    expect(translator("en").t("account.totp_on", { since: "x", count: 1 })).toContain("1 unused recovery code.");
    expect(translator("de").t("account.totp_on", { since: "x", count: 3 })).toContain("3 unbenutzte Wiederherstellungscodes");
    const moment = Date.UTC(2025, 10, 22, 14, 5) / 1000;
    expect(translator("en").datetime(moment)).toBe("22 November 2025, 14:05 UTC");
    expect(translator("de").date(moment)).toBe("22. November 2025");
    expect(translator("ja").date(moment)).toBe("2025年11月22日");
    expect(translator("fr").datetime(moment)).toBe("22 novembre 2025 à 14:05 UTC");
  });
});

describe("negotiation", () => {
  test("Accept-Language: by q-value, then order; q=0 and * dropped", () => {
    expect(parse_accept_language("fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7, *;q=0.5")).toEqual(["fr-CH", "fr", "en", "de"]);
    expect(parse_accept_language("ja;q=0, es;q=0.2, it")).toEqual(["it", "es"]);
    expect(parse_accept_language("")).toEqual([]);
  });

  test("a tag finds its catalog, or its language's; the first source with one wins", () => {
    expect(supported_locale("FR-ca")).toBe("fr");
    expect(supported_locale("pt-BR")).toBeNull();
    expect(choose_locale([["pt"], [], ["es-419", "de"]], "en")).toBe("es");
    expect(choose_locale([["pt"]], "ja")).toBe("ja");
  });
});
