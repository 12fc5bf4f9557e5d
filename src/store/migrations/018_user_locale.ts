/**
 * Version 18: `users.locale`, the language a person chose for the pages and their mail (a
 * catalog's tag, e.g. `fr`; NULL: none chosen, the browser's language applies). Set by the
 * language switcher while signed in (README, "Languages").
 */
import type { Migration } from "./migration.ts";

const SQL = `ALTER TABLE users ADD COLUMN locale TEXT;\n`;

export const user_locale: Migration = {
  version: 18,
  name: "user locale",
  sqlite: SQL,
  postgres: SQL,
};
