/**
 * The user's language: the message catalogs (locales/<language>.json, ICU MessageFormat through
 * intl-messageformat), compiled once per message and cached, and the choice of a language from
 * what the request offers (OIDC Core §3.1.2.1 ui_locales, a saved preference, a cookie,
 * Accept-Language per RFC 9110 §12.5.4). Dates and numbers go through Intl in the same language.
 *
 * The rules raise English messages (PageError titles, form errors); they are also the English
 * catalog's values, so the pages translate them at the edge with `text()` (one lookup, no key
 * threaded through the rules). Protocol error_description strings stay English: they are for
 * developers.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { IntlMessageFormat } from "intl-messageformat";
import { CATALOGS } from "../../platform/locales.ts";

export const BASE_LOCALE = "en";

/**
 * The language of the request being answered (set by the HTTP layer around each page request):
 * a mail a request causes is written in it when its recipient chose none (app/mail/outbox.ts).
 */
export const REQUEST_LOCALE = new AsyncLocalStorage<string>();

/** The languages with a catalog, English first. */
export const LOCALES: readonly string[] = [
  BASE_LOCALE,
  ...Object.keys(CATALOGS)
    .filter((l) => l !== BASE_LOCALE)
    .sort(),
];

/** Intl's locale for a catalog where the bare tag formats otherwise than we write ("22 November 2025"). */
const INTL_LOCALES: Record<string, string> = { en: "en-GB" };

/** Scripts written right to left (HTML `dir`), should a catalog for one of them be added. */
const RTL = new Set(["ar", "fa", "he", "ur"]);

export type MessageValues = Record<string, string | number | Date | boolean | null | undefined>;

export type Translator = {
  /** The catalog's language tag (`<html lang>`). */
  readonly locale: string;
  readonly dir: "ltr" | "rtl";
  /** The message `key` with its placeholders filled; English when this catalog lacks it, the key when English does. */
  t(key: string, values?: MessageValues): string;
  /**
   * The message as HTML: its values escaped, its `<strong>…</strong>` and `<code>…</code>` tags
   * kept (ICU rich text). For `<%~ %>`: the catalogs are ours, the values are not.
   */
  html(key: string, values?: MessageValues, link?: { href: string; style?: string }): string;
  /** An English message raised by the rules, in this language when the English catalog holds it; else unchanged. */
  text(english: string | null | undefined): string;
  /** A moment (unix seconds) as date and time in this language. */
  datetime(seconds: number): string;
  /** A moment (unix seconds) as a date in this language. */
  date(seconds: number): string;
  number(value: number): string;
};

const cache = new Map<string, Translator>();

/**
 * Texts `text()` was given and found no catalog message for (at most 100, the first seen): a
 * message the rules made without a key reaches the page in English. The tests read it after a
 * walk through the pages (tests/e2e/languages.test.ts); nothing else does.
 */
export const TEXT_MISSES = new Set<string>();
const TEXT_MISSES_MAX = 100;

function escape_html(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&${({ "&": "amp", "<": "lt", ">": "gt", '"': "quot", "'": "#39" } as Record<string, string>)[c]};`);
}

/** The same tags as plain text (`t()`: a title, an attribute). */
const PLAIN_TAGS = { strong: (chunks: string[]) => chunks.join(""), code: (chunks: string[]) => chunks.join(""), link: (chunks: string[]) => chunks.join("") };

/** The tags a catalog message may use (ICU rich text), rendered for `html()`. */
const TAGS = {
  strong: (chunks: string[]) => `<strong>${chunks.join("")}</strong>`,
  code: (chunks: string[]) => `<code>${chunks.join("")}</code>`,
};
let english_keys: Map<string, string> | undefined;

let english_patterns: { key: string; pattern: RegExp; names: string[] }[] | undefined;

const SIMPLE_ARGUMENT = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * The catalog key of an English text the rules made, with its placeholders' values: an exact
 * English message, else one whose simple `{name}` placeholders match (`Allow {client}?` matches
 * "Allow Demo?"); longest literal text first, and at least a few letters of it.
 */
function english_match(text: string): { key: string; values: MessageValues } | undefined {
  if (english_keys === undefined || english_patterns === undefined) {
    english_keys = new Map();
    english_patterns = [];
    const base = Object.entries(CATALOGS[BASE_LOCALE] ?? {});
    for (const [key, value] of base) if (!english_keys.has(value)) english_keys.set(value, key);
    const ranked: { key: string; pattern: RegExp; names: string[]; literal: number }[] = [];
    for (const [key, value] of base) {
      const literal = value.replace(SIMPLE_ARGUMENT, "");
      // Only plain placeholders (no plural, select or tag) and enough fixed words to be sure.
      if (literal === value || /[{}<#']/.test(literal) || literal.trim().length < 6) continue;
      const names: string[] = [];
      const source = value.split(SIMPLE_ARGUMENT).map((part, i) => {
        if (i % 2 === 1) {
          names.push(part);
          return "(.+?)";
        }
        return part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      });
      ranked.push({ key, pattern: new RegExp(`^${source.join("")}$`, "s"), names, literal: literal.length });
    }
    english_patterns = ranked.sort((a, b) => b.literal - a.literal);
  }
  const exact = english_keys.get(text);
  if (exact !== undefined) return { key: exact, values: {} };
  for (const { key, pattern, names } of english_patterns) {
    const found = pattern.exec(text);
    if (found !== null) return { key, values: Object.fromEntries(names.map((name, i) => [name, found[i + 1]])) };
  }
  return undefined;
}

/** The translator for `locale` (one of LOCALES; anything else gets English). */
export function translator(locale: string): Translator {
  const known = CATALOGS[locale] !== undefined ? locale : BASE_LOCALE;
  const cached = cache.get(known);
  if (cached !== undefined) return cached;
  const catalog = CATALOGS[known]!;
  const base = CATALOGS[BASE_LOCALE]!;
  const compiled = new Map<string, IntlMessageFormat>();
  const own_values = new Set(Object.values(catalog));
  // Intl in the page's language; the catalog's `format.datetime` joins date and time (UTC, the same for everyone).
  const intl_locale = INTL_LOCALES[known] ?? known;
  const date = new Intl.DateTimeFormat(intl_locale, { year: "numeric", month: "long", day: "numeric", timeZone: "UTC" });
  const time = new Intl.DateTimeFormat(intl_locale, { hour: "2-digit", minute: "2-digit", hourCycle: "h23", timeZone: "UTC" });
  const number = new Intl.NumberFormat(intl_locale);
  const t = (key: string, values?: MessageValues): string => {
    let format = compiled.get(key);
    if (format === undefined) {
      const source = catalog[key] ?? base[key];
      if (source === undefined) return key;
      format = new IntlMessageFormat(source, known);
      compiled.set(key, format);
    }
    const out = format.format({ ...PLAIN_TAGS, ...values } as unknown as Record<string, string>);
    return Array.isArray(out) ? out.join("") : String(out);
  };
  const made: Translator = {
    locale: known,
    dir: RTL.has(known.split("-")[0]!) ? "rtl" : "ltr",
    t,
    text(english) {
      if (english === null || english === undefined) return "";
      // A placeholder's value may itself be a message of the rules ("{words} (required by the application)").
      const translate = (text: string, depth: number): string => {
        const found = english_match(text);
        if (found === undefined) {
          // A whole text with words (not a placeholder's value: a name, an address) that no key holds.
          // A text already in this language (an error page's heading, as its <title>) is no miss.
          if (depth === 0 && /\p{L}{2,}\s+\p{L}{2,}/u.test(text) && !own_values.has(text) && TEXT_MISSES.size < TEXT_MISSES_MAX) TEXT_MISSES.add(text);
          return text;
        }
        const values =
          depth > 1
            ? found.values
            : Object.fromEntries(Object.entries(found.values).map(([name, value]) => [name, typeof value === "string" ? translate(value, depth + 1) : value]));
        return t(found.key, values);
      };
      return translate(english, 0);
    },
    html(key, values = {}, link) {
      const escaped: Record<string, unknown> = { ...TAGS };
      // `<link>…</link>` in a message: an anchor to `link.href` (a mail's link to the account page).
      if (link !== undefined)
        escaped.link = (chunks: string[]) => `<a href="${escape_html(link.href)}"${link.style === undefined ? "" : ` style="${escape_html(link.style)}"`}>${chunks.join("")}</a>`;
      for (const [name, value] of Object.entries(values)) escaped[name] = typeof value === "string" ? escape_html(value) : value;
      return t(key, escaped as MessageValues);
    },
    datetime: (seconds) => t("format.datetime", { date: date.format(new Date(seconds * 1000)), time: time.format(new Date(seconds * 1000)) }),
    date: (seconds) => date.format(new Date(seconds * 1000)),
    number: (value) => number.format(value),
  };
  cache.set(known, made);
  return made;
}

/** The catalog for a language tag (BCP 47, any case): itself, else its primary language (`fr-CA` → `fr`); null when none. */
export function supported_locale(tag: string | null | undefined): string | null {
  if (typeof tag !== "string" || tag === "" || tag.length > 35) return null;
  const lower = tag.trim().toLowerCase();
  const exact = LOCALES.find((l) => l.toLowerCase() === lower);
  if (exact !== undefined) return exact;
  const primary = lower.split("-")[0]!;
  return LOCALES.find((l) => l.toLowerCase() === primary) ?? null;
}

/** OIDC Core §3.1.2.1 ui_locales / claims_locales: space-separated tags in preference order. */
export function parse_locales(value: string | null | undefined): string[] {
  return typeof value === "string"
    ? value
        .split(" ")
        .filter((tag) => tag !== "")
        .slice(0, 20)
    : [];
}

/** RFC 9110 §12.5.4 Accept-Language: the ranges in preference order (q-values; q=0 is "not this"; `*` dropped). */
export function parse_accept_language(header: string | null | undefined): string[] {
  if (typeof header !== "string" || header === "") return [];
  const ranges: { tag: string; q: number; i: number }[] = [];
  header
    .slice(0, 1024)
    .split(",")
    .forEach((part, i) => {
      const [tag, ...params] = part.trim().split(";");
      if (tag === undefined || tag === "" || tag === "*") return;
      let q = 1;
      for (const param of params) {
        const [name, value] = param.trim().split("=");
        if (name?.trim().toLowerCase() === "q") q = Number(value);
      }
      if (Number.isFinite(q) && q > 0 && q <= 1) ranges.push({ tag: tag.trim(), q, i });
    });
  return ranges.sort((a, b) => b.q - a.q || a.i - b.i).map((r) => r.tag);
}

/** The first tag of the first source that names a language with a catalog, else `fallback`. */
export function choose_locale(sources: readonly (readonly string[])[], fallback: string): string {
  for (const tags of sources) {
    for (const tag of tags) {
      const found = supported_locale(tag);
      if (found !== null) return found;
    }
  }
  return supported_locale(fallback) ?? BASE_LOCALE;
}
