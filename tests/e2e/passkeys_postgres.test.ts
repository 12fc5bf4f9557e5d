/** Passkeys in Chromium on a PostgreSQL-backed provider (the suite: passkeys_suite.ts). */
import { create_temp_database, use_postgres } from "../store/pg.ts";
import { passkey_browser_suite } from "./passkeys_suite.ts";

if (await use_postgres()) passkey_browser_suite("PostgreSQL", create_temp_database);
