/** Request objects by reference, signed responses, JARM and pairwise subjects on SQLite (the suite: jwt_responses_suite.ts). */
import { jwt_responses_suite } from "./jwt_responses_suite.ts";

jwt_responses_suite("SQLite", async () => ({ url: "sqlite::memory:", drop: async () => {} }));
