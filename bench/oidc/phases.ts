// CPU of each step of a session flow inside one process, without HTTP:
//   taskset -c 0 bun run bench/oidc/phases.ts        (CONC=8 FLOWS=4000 MEMORY=1 to change)
// The provider's app (`build_app`) answers Request objects directly, on a durable SQLite file
// (MEMORY=1: sqlite::memory:). A signed-in user with consent on record runs CONC flows in
// lockstep: CONC /authorize, then CONC /token (PKCE, RS256 ID Token), then CONC /userinfo, so
// each step's CPU (process.cpuUsage, all threads) can be told apart. Prints µs a flow for each
// step, three rounds. BENCH_IDP_ROOT measures another checkout (A/B).
// Syscalls a flow: `strace -f -c -e trace=pwrite64,pread64,fsync bun run bench/oidc/phases.ts`.
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ROOT = process.env.BENCH_IDP_ROOT ?? join(import.meta.dir, "../..");
const { load_config } = await import(join(ROOT, "src/app/config.ts"));
const { open_store } = await import(join(ROOT, "src/store/open.ts"));
const { create_provider } = await import(join(ROOT, "src/app/provider.ts"));
const { build_app } = await import(join(ROOT, "src/app/server.ts"));
const { random_token, sha256 } = await import(join(ROOT, "src/oidc/crypto/secrets.ts"));
// The session cookie of an http issuer (an https one adds the __Host- prefix).
const SESSION_COOKIE = "idp_session";

const CONC = Number(process.env.CONC ?? 8);
const FLOWS = Number(process.env.FLOWS ?? 4000);
const ISSUER = "http://127.0.0.1:9999";
const REDIRECT_URI = "https://rp.example/cb";

const database_url = process.env.MEMORY === "1" ? "sqlite::memory:" : `sqlite:${join(mkdtempSync(join(tmpdir(), "idp-phases-")), "idp.sqlite")}`;
const config = load_config({}, { issuer: ISSUER, port: 9999, host: "127.0.0.1", database_url, log_requests: false, rate_limits: { enabled: false } });
const store = await open_store(database_url, { migrate: true });
const app = build_app(await create_provider(config, { store, log: () => {} }));

const user = await store.create_user({ username: "u", password_hash: "unused", name: "U", email: "u@example.com", email_verified: true });
const secret = random_token(32);
await store.create_client({
  client_id: "c",
  client_secret_hash: sha256(secret),
  metadata: { redirect_uris: [REDIRECT_URI], grant_types: ["authorization_code"], response_types: ["code"], token_endpoint_auth_method: "client_secret_basic" },
});
await store.upsert_grant({ user_id: user.id, client_id: "c", scopes: ["openid", "profile", "email"] });
const session = random_token(32);
const now = Math.floor(Date.now() / 1000);
await store.create_session({ id_hash: sha256(session), user_id: user.id, auth_time: now, amr: ["pwd"], expires_at: now + 86_400 });
const basic = `Basic ${Buffer.from(`c:${secret}`).toString("base64")}`;

const cpu = () => {
  const used = process.cpuUsage();
  return used.user + used.system;
};

async function authorize(): Promise<{ code: string; verifier: string }> {
  const verifier = randomBytes(32).toString("base64url");
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  const query = new URLSearchParams({
    response_type: "code",
    client_id: "c",
    redirect_uri: REDIRECT_URI,
    scope: "openid profile email",
    state: "s",
    nonce: "n",
    code_challenge: challenge,
    code_challenge_method: "S256",
  });
  const answer = await app.answer(new Request(`${ISSUER}/authorize?${query}`, { headers: { cookie: `${SESSION_COOKIE}=${session}` } }));
  const code = new URL(answer.headers.get("location") ?? "http://x/").searchParams.get("code");
  if (code === null) throw new Error(`/authorize answered ${answer.status} without a code: ${answer.headers.get("location")}`);
  return { code, verifier };
}

async function token(grant: { code: string; verifier: string }): Promise<string> {
  const body = new URLSearchParams({ grant_type: "authorization_code", code: grant.code, redirect_uri: REDIRECT_URI, code_verifier: grant.verifier });
  const answer = await app.answer(
    new Request(`${ISSUER}/token`, { method: "POST", headers: { authorization: basic, "content-type": "application/x-www-form-urlencoded" }, body: body.toString() }),
  );
  const json = (await answer.json()) as { access_token?: string; id_token?: string };
  if (json.id_token === undefined || json.access_token === undefined) throw new Error(`/token answered ${answer.status}: ${JSON.stringify(json)}`);
  return json.access_token;
}

async function userinfo(access_token: string): Promise<void> {
  const answer = await app.answer(new Request(`${ISSUER}/userinfo`, { headers: { authorization: `Bearer ${access_token}` } }));
  if (answer.status !== 200) throw new Error(`/userinfo answered ${answer.status}`);
  await answer.arrayBuffer();
}

await userinfo(await token(await authorize()));
for (let round = 0; round < 3; round++) {
  const spent = { authorize: 0, token: 0, userinfo: 0 };
  const rounds = Math.floor(FLOWS / CONC);
  for (let r = 0; r < rounds; r++) {
    let start = cpu();
    const grants = await Promise.all(Array.from({ length: CONC }, authorize));
    spent.authorize += cpu() - start;
    start = cpu();
    const tokens = await Promise.all(grants.map(token));
    spent.token += cpu() - start;
    start = cpu();
    await Promise.all(tokens.map(userinfo));
    spent.userinfo += cpu() - start;
  }
  const flows = rounds * CONC;
  const each = (us: number) => (us / flows).toFixed(0);
  console.log(
    `${CONC} at a time, µs of CPU a flow: authorize ${each(spent.authorize)}, token ${each(spent.token)}, userinfo ${each(spent.userinfo)}, total ${each(spent.authorize + spent.token + spent.userinfo)}`,
  );
}
process.exit(0);
