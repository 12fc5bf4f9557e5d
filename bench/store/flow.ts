// The store calls of one session flow, CONC flows at a time, on a durable SQLite file:
//   taskset -c 0 bun run bench/store/flow.ts         (CONC=32 FLOWS=40000 ORDERED=1 to change)
// Per flow: insert_code + add_session_client (/authorize), get_client, consume_code, then
// insert_token + get_user_by_id (/token), as the server makes them, through `open_store` (group
// commit, codec). Prints the CPU (process.cpuUsage: user, system) a flow, three rounds, the
// tables growing meanwhile. ORDERED=1 gives codes and tokens time-ordered keys (a hex
// millisecond prefix), as the provider issues them (crypto/secrets.ts ordered_secret); without
// it they are random hashes, as before (bench/RESULTS.md, "OpenID Provider").
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { open_store } from "../../src/store/open.ts";

const CONC = Number(process.env.CONC ?? 32);
const FLOWS = Number(process.env.FLOWS ?? 40_000);
const ORDERED = process.env.ORDERED === "1";

const store = await open_store(`sqlite:${join(mkdtempSync(join(tmpdir(), "idp-store-flow-")), "idp.sqlite")}`, { migrate: true });
const user = await store.create_user({ username: "u", password_hash: "unused" });
await store.create_client({ client_id: "c", metadata: { redirect_uris: ["https://rp.example/cb"] } });
const session = "s".repeat(43);
const now = Math.floor(Date.now() / 1000);
await store.create_session({ id_hash: session, user_id: user.id, auth_time: now, amr: ["pwd"], expires_at: now + 86_400 });

const random = () => crypto.getRandomValues(new Uint8Array(32)).toBase64({ alphabet: "base64url", omitPadding: true });
let sequence = 0;
const key = () => (ORDERED ? `${Date.now().toString(16).padStart(12, "0")}${(sequence++).toString(16).padStart(6, "0")}${random()}` : random());

async function flow(): Promise<void> {
  const code_hash = key();
  const grant_id = Bun.randomUUIDv7();
  await Promise.all([
    store.insert_code({
      code_hash,
      client_id: "c",
      user_id: user.id,
      session_id_hash: session,
      redirect_uri: "https://rp.example/cb",
      scope: "openid profile",
      nonce: random(),
      code_challenge: random(),
      code_challenge_method: "S256",
      auth_time: now,
      acr: null,
      amr: ["pwd"],
      claims: null,
      grant_id,
      created_at: now,
      expires_at: now + 60,
    }),
    store.add_session_client(session, "c", now),
  ]);
  await store.get_client("c");
  const consumed = await store.consume_code(code_hash, now);
  if (consumed.status !== "ok") throw new Error(`consume_code: ${consumed.status}`);
  await Promise.all([
    store.insert_token({
      token_hash: key(),
      kind: "access",
      client_id: "c",
      user_id: user.id,
      scope: "openid profile",
      grant_id,
      family_id: grant_id,
      session_id_hash: session,
      auth_time: now,
      acr: null,
      amr: ["pwd"],
      nonce: null,
      claims: null,
      created_at: now,
      expires_at: now + 3600,
    }),
    store.get_user_by_id(user.id),
  ]);
}

for (let round = 0; round < 3; round++) {
  const start = process.cpuUsage();
  let started = 0;
  await Promise.all(
    Array.from({ length: CONC }, async () => {
      while (started < FLOWS) {
        started++;
        await flow();
      }
    }),
  );
  const used = process.cpuUsage(start);
  const each = (us: number) => (us / started).toFixed(1);
  console.log(`${CONC} at a time${ORDERED ? ", ordered keys" : ""}: ${each(used.user + used.system)} µs of CPU a flow (user ${each(used.user)}, system ${each(used.system)})`);
}
await store.close();
