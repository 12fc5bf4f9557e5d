/**
 * The message catalogs (locales/<language>.json, ICU MessageFormat), imported as JSON so
 * `bun build --compile` embeds them in the executable; this runtime seam is the one place that
 * knows how. Adding a language: its file in locales/ and its line here
 * (tests/oidc/ui/catalogs.test.ts fails when a file is not listed).
 */
import de from "../../locales/de.json" with { type: "json" };
import en from "../../locales/en.json" with { type: "json" };
import es from "../../locales/es.json" with { type: "json" };
import fr from "../../locales/fr.json" with { type: "json" };
import ja from "../../locales/ja.json" with { type: "json" };

/** Language tag → flat catalog (key → ICU message). English is the reference every other one matches. */
export const CATALOGS: Readonly<Record<string, Readonly<Record<string, string>>>> = { en, de, fr, es, ja };
