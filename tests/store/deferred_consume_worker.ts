/**
 * A separate process redeeming one code or refresh token through a store with deferred writes
 * (as a worker of `idp serve --workers N` opens it): `bun deferred_consume_worker.ts <sqlite-url>
 * code|refresh <hash> <attempts> <now>` prints the JSON list of statuses its concurrent attempts got.
 */
import { open_store } from "../../src/store/open.ts";

const [url, kind, hash, attempts, now] = process.argv.slice(2);
if (!url || !hash || (kind !== "code" && kind !== "refresh")) throw new Error("usage: deferred_consume_worker.ts <url> code|refresh <hash> <n> <now>");
const store = await open_store(url, { migrate: false, deferred_writes: true });
try {
  const tries = Array.from({ length: Number(attempts) }, async () =>
    kind === "code" ? (await store.consume_code(hash, Number(now))).status : (await store.rotate_refresh_token(hash, Number(now))).status,
  );
  console.log(JSON.stringify(await Promise.all(tries)));
} finally {
  await store.close();
}
