/** SAML Single Logout with pysaml2 on a SQLite-backed provider (the suite: pysaml2_logout_suite.ts). */
import { logout_suite } from "./pysaml2_logout_suite.ts";

logout_suite("SQLite", async () => ({ url: "sqlite::memory:", drop: async () => {} }));
