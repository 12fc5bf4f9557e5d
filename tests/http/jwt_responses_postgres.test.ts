/** Request objects by reference, signed responses, JARM and pairwise subjects on PostgreSQL (the suite: jwt_responses_suite.ts). */
import { create_temp_database, use_postgres } from "../store/pg.ts";
import { jwt_responses_suite } from "./jwt_responses_suite.ts";

if (await use_postgres()) jwt_responses_suite("PostgreSQL", create_temp_database);
