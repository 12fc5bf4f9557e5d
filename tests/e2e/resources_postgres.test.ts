/** Resource indicators, JWT access tokens and token exchange on a PostgreSQL-backed provider (the suite: resources_suite.ts). */
import { create_temp_database, use_postgres } from "../store/pg.ts";
import { resources_suite } from "./resources_suite.ts";

if (await use_postgres()) resources_suite("PostgreSQL", create_temp_database);
