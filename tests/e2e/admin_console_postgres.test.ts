/** The admin console's main walk in Chromium on a PostgreSQL-backed provider (the suite: admin_console_suite.ts). */
import { create_temp_database, use_postgres } from "../store/pg.ts";
import { admin_console_suite } from "./admin_console_suite.ts";

if (await use_postgres()) admin_console_suite("PostgreSQL", create_temp_database, false);
