/** The admin console in Chromium on SQLite, with every refusal (the suite: admin_console_suite.ts). */
import { admin_console_suite } from "./admin_console_suite.ts";

admin_console_suite("SQLite", async () => ({ url: "sqlite::memory:", drop: async () => {} }), true);
