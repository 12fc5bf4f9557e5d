/** SAML single sign-on and Single Logout with pysaml2 on a PostgreSQL-backed provider (the suite: pysaml2_logout_suite.ts). */
import { create_temp_database, use_postgres } from "../store/pg.ts";
import { logout_suite } from "./pysaml2_logout_suite.ts";

if (await use_postgres()) logout_suite("PostgreSQL", create_temp_database);
