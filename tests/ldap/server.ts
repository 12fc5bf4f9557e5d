/**
 * A provider with its LDAP directory on for the LDAP tests: the HTTP server, plain LDAP with
 * StartTLS and LDAPS on free ports, a throwaway certificate for 127.0.0.1, base
 * dc=example,dc=com, and a small directory: alice (admins, devs), bob (devs), carol (with an
 * authenticator app), dave (disabled), and the service accounts gitea (whole directory) and
 * grafana (--group devs). On SQLite, or on a PostgreSQL database given by URL.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { load_config, type Config } from "../../src/app/config.ts";
import { serve, type Served } from "../../src/app/server.ts";
import { add_service_account } from "../../src/oidc/admin/ldap_service_accounts.ts";
import { hash_password } from "../../src/platform/passwords.ts";
import { open_store } from "../../src/store/open.ts";
import type { Store, UserRow } from "../../src/store/types.ts";
import { free_port, PASSWORD, test_clock } from "../helpers/provider.ts";

export const BASE = "dc=example,dc=com";
export const people = (username: string) => `uid=${username},ou=people,${BASE}`;
export const groups = (name: string) => `cn=${name},ou=groups,${BASE}`;
export const services = (name: string) => `cn=${name},ou=services,${BASE}`;

let certificate: { dir: string; cert: string; key: string } | undefined;

/** A self-signed certificate for 127.0.0.1 and localhost, made once per test process. */
export function test_certificate(): { cert: string; key: string } {
  if (certificate === undefined) {
    const dir = mkdtempSync(join(tmpdir(), "idp-ldap-tls-"));
    const cert = join(dir, "cert.pem");
    const key = join(dir, "key.pem");
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-keyout",
        key,
        "-out",
        cert,
        "-days",
        "2",
        "-subj",
        "/CN=127.0.0.1",
        "-addext",
        "subjectAltName=IP:127.0.0.1,DNS:localhost",
      ],
      { stdio: "ignore" },
    );
    certificate = { dir, cert, key };
    process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
  }
  return certificate;
}

export type LdapProvider = {
  served: Served;
  store: Store;
  config: Config;
  /** ldap://127.0.0.1:<port> (StartTLS available) and ldaps://127.0.0.1:<port>. */
  ldap_url: string;
  ldaps_url: string;
  ldap_port: number;
  cert: string;
  users: Record<"alice" | "bob" | "carol" | "dave", UserRow>;
  password: string;
  /** The service accounts' passwords. */
  gitea: string;
  grafana: string;
  stop(): Promise<void>;
};

export async function start_ldap_provider(
  options: { database_url?: string; ldap?: Record<string, unknown>; config?: Record<string, unknown>; log?: (line: Record<string, unknown>) => void } = {},
): Promise<LdapProvider> {
  const { cert, key } = test_certificate();
  const [port, ldap_port, ldaps_port] = [await free_port(), await free_port(), await free_port()];
  const database_url = options.database_url ?? "sqlite::memory:";
  const config = load_config(
    {},
    {
      issuer: `http://127.0.0.1:${port}`,
      port,
      host: "127.0.0.1",
      database_url,
      signing_algs: ["RS256"],
      log_requests: false,
      argon2: { memory_kib: 1024, time_cost: 1 },
      login_throttle: { delay_ms: 0 },
      ...options.config,
      ldap: { listen: `127.0.0.1:${ldap_port}`, ldaps_listen: `127.0.0.1:${ldaps_port}`, tls_cert: cert, tls_key: key, base_dn: BASE, ...options.ldap },
    },
  );
  const store = await open_store(database_url, { migrate: true });
  const add = async (username: string, fields: Partial<UserRow> = {}) =>
    store.create_user({
      username,
      password_hash: await hash_password(PASSWORD, config.argon2),
      email: `${username}@example.com`,
      email_verified: true,
      name: `${username[0]!.toUpperCase()}${username.slice(1)} Example`,
      ...fields,
    });
  const users = {
    alice: await add("alice", { given_name: "Alice", family_name: "Liddell", name: "Alice Liddell" }),
    bob: await add("bob", { email_verified: false }),
    carol: await add("carol", { totp_secret: "JBSWY3DPEHPK3PXP", totp_enabled_at: 1 }),
    dave: await add("dave", { status: "disabled" }),
  };
  const admins = await store.create_group({ name: "admins", description: "Operators" });
  const devs = await store.create_group({ name: "devs" });
  await store.add_group_member(admins.id, users.alice.id);
  for (const user of [users.alice, users.bob, users.dave]) await store.add_group_member(devs.id, user.id);
  const now = Math.floor(Date.now() / 1000);
  const gitea = (await add_service_account(store, { name: "gitea" }, now)).password;
  const grafana = (await add_service_account(store, { name: "grafana", group: "devs" }, now)).password;
  const served = await serve(config, { store, port, now: test_clock().now, log: options.log ?? (() => {}), out: () => {} });
  return {
    served,
    store,
    config,
    ldap_url: `ldap://127.0.0.1:${ldap_port}`,
    ldaps_url: `ldaps://127.0.0.1:${ldaps_port}`,
    ldap_port,
    cert,
    users,
    password: PASSWORD,
    gitea,
    grafana,
    async stop() {
      await served.stop();
      await store.close();
    },
  };
}
