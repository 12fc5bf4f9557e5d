/**
 * A database with something in every exported table (store/rows/transfer.ts), made through the
 * CLI where it has a command and through the store where only a browser ceremony would (TOTP,
 * passkeys, recovery codes, links to upstream accounts).
 */
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "../helpers/test_api.ts";
import { sp_metadata } from "../helpers/saml.ts";
import { with_store, type Sandbox } from "./helpers.ts";

export const SECRET_KEY = randomBytes(32).toString("base64url");
/** What the seeded database's commands run with: the secret key seals the upstream's client secret. */
export const SEED_ENV = { IDP_SECRET_KEY: SECRET_KEY, IDP_ISSUER: "https://id.example.com", IDP_FORWARD_AUTH_COOKIE_DOMAIN: "example.com" };
export const BOB_PASSWORD = "correct horse battery";
export const T0 = 1_700_000_000;

export async function seed(box: Sandbox): Promise<void> {
  const run = async (argv: string[], stdin?: string) => {
    const result = await box.run(argv, { env: SEED_ENV, ...(stdin !== undefined && { stdin }) });
    expect({ argv, code: result.code, stderr: result.stderr }).toEqual({ argv, code: 0, stderr: expect.any(String) });
    return result;
  };
  await run(["users", "add", "bob", "--email", "Bob@Example.com", "--name", "Bob Builder", "--password-stdin"], `${BOB_PASSWORD}\n`);
  await run(["users", "add", "Carol", "--email", "carol@example.com", "--password-stdin"], "staple horse correct\n");
  await run(["users", "add", "dave", "--password-stdin"], "battery staple horse\n");
  await run(["users", "disable", "dave"]);
  await run(["groups", "add", "Team:Ops", "--description", "On call"]);
  await run(["groups", "add", "admins"]);
  await run(["groups", "members", "add", "team:ops", "bob"]);
  await run(["groups", "members", "add", "team:ops", "carol"]);
  await run(["groups", "members", "add", "admins", "carol"]);
  await run(["clients", "add", "--name", "Wiki", "--redirect-uri", "https://wiki.example.com/cb"]);
  await run(["clients", "add", "--name", "Daemon", "--grant-type", "client_credentials", "--auth-method", "client_secret_post"]);
  await run(["upstreams", "add", "corp", "--issuer", "https://sso.corp.example", "--client-id", "idp", "--client-secret-stdin"], "upstream secret\n");
  await run(["resources", "add", "https://api.example.com/", "--scope", "read:docs write:docs", "--format", "jwt", "--ttl", "300"]);
  const metadata = join(box.dir, "sp.xml");
  writeFileSync(metadata, sp_metadata({ entity_id: "https://sp.example.com/saml", acs: ["https://sp.example.com/acs"] }));
  await run(["saml", "add", "--metadata-file", metadata]);
  await run(["apps", "add", "grafana", "--url", "https://example.com/grafana", "--allowed-group", "admins", "--rule", "/grafana/admin=admins+2fa"]);
  await run(["ldap", "service-accounts", "add", "Gitea", "--group", "team:ops"]);
  await run(["attributes", "add", "Department", "--type", "string", "--scope", "profile", "--claim", "dept", "--user-editable"]);
  await run(["attributes", "add", "badge", "--type", "number", "--scope", "profile"]);
  await run(["users", "update", "bob", "--attribute", "Department=Ops", "--attribute", "badge=42"]);
  await run(["users", "update", "carol", "--attribute", "department=Sales"]);
  await run(["webhooks", "add", "https://hooks.example.com/idp", "--event", "user.*", "--description", "HR sync"]);
  await run(["keys", "rotate"]);
  await with_store(box, async (store) => {
    const carol = (await store.get_user_by_username("Carol"))!;
    const bob = (await store.get_user_by_username("bob"))!;
    await store.update_user(carol.id, { totp_secret: "JBSWY3DPEHPK3PXP", totp_enabled_at: T0, address: { country: "FR", locality: "Lyon" }, phone_number_verified: true });
    await store.set_recovery_codes(carol.id, ["r1-hash", "r2-hash"], T0);
    await store.consume_recovery_code(carol.id, "r1-hash", T0 + 10);
    await store.create_passkey({
      credential_id: "Y3JlZC0x",
      user_id: carol.id,
      public_key: "cHVibGljLWtleQ",
      counter: 12,
      transports: ["usb", "nfc"],
      backup_eligible: true,
      backup_state: false,
      aaguid: "00000000-0000-0000-0000-000000000000",
      name: "YubiKey",
      created_at: T0,
    });
    await store.link_identity({
      upstream: "corp",
      subject: "sub-bob",
      user_id: bob.id,
      email: "bob@corp.example",
      issuer: "https://sso.corp.example",
      subject_claim: "sub",
      created_at: T0,
    });
    const team = (await store.get_group_by_name("team:ops"))!;
    await store.ldap_posix_numbers([bob.id, carol.id, team.id], 10000);
  });
}
