import { open_store } from "../../src/store/open.ts";
import { createTempDatabase, usePostgres } from "./pg.ts";
import { storeSuite } from "./suite.ts";

if (await usePostgres()) {
  storeSuite("postgres", async () => {
    const db = await createTempDatabase();
    return {
      url: db.url,
      open: (options) => open_store(db.url, { max: 10, ...options }),
      drop: () => db.drop(),
    };
  });
}
