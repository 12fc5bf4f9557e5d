/** Resource indicators, JWT access tokens and token exchange on a SQLite-backed provider (the suite: resources_suite.ts). */
import { resources_suite } from "./resources_suite.ts";

resources_suite("SQLite", async () => ({ url: "sqlite::memory:", drop: async () => {} }));
