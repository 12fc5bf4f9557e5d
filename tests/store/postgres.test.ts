import { open_store } from "../../src/store/open.ts";
import { create_temp_database, use_postgres } from "./pg.ts";
import { store_suite } from "./suite.ts";

if (await use_postgres()) {
  store_suite("postgres", async () => {
    const db = await create_temp_database();
    return {
      url: db.url,
      open: (options) => open_store(db.url, { max: 10, ...options }),
      drop: () => db.drop(),
    };
  });
}
