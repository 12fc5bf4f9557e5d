/** Passkeys in Chromium on a SQLite-backed provider (the suite: passkeys_suite.ts). */
import { passkey_browser_suite } from "./passkeys_suite.ts";

passkey_browser_suite("SQLite", async () => ({ url: "sqlite::memory:", drop: async () => {} }));
