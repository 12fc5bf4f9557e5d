/**
 * One LDAP session's rules (src/oidc/ldap/session.ts) where a real client cannot reach them
 * easily: the time limit (with a clock that jumps), paged results cookies that do not belong to
 * the search, and an account removed or disabled after its bind.
 */
import { afterAll, beforeAll, describe, expect, test } from "../../helpers/test_api.ts";
import { encode_paged_value } from "../../../src/oidc/ldap/messages.ts";
import { OID, RESULT, type Control, type Request, type ResponseMessage } from "../../../src/oidc/ldap/protocol.ts";
import { LdapSession, ldap_rules } from "../../../src/oidc/ldap/session.ts";
import { BASE, people, services, start_ldap_provider, type LdapProvider } from "../../ldap/server.ts";

let t: LdapProvider;
beforeAll(async () => {
  t = await start_ldap_provider();
});
afterAll(() => t?.stop());

const SUBTREE: Request = {
  op: "search",
  base: BASE,
  scope: 2,
  deref: 0,
  size_limit: 0,
  time_limit: 0,
  types_only: false,
  filter: { type: "present", attribute: "objectClass" },
  attributes: ["1.1"],
};

async function session_as(name: string, password: string, now_ms: () => number = () => performance.now()): Promise<LdapSession> {
  const session = new LdapSession(ldap_rules(t.served.provider, false, now_ms), { ip: "127.0.0.1", secure: false, loopback: true, start_tls: false });
  const { responses } = await session.handle({ id: 1, request: { op: "bind", version: 3, name, auth: { kind: "simple", password } }, controls: [] });
  expect(responses[0]!.response).toMatchObject({ op: "bind", result: { code: 0 } });
  return session;
}

const done = (responses: ResponseMessage[]) => responses.at(-1)!;
const entries = (responses: ResponseMessage[]) => responses.filter((r) => r.response.op === "search_entry").map((r) => (r.response as { dn: string }).dn);
const paged = (size: number, cookie: Uint8Array): Control => ({ oid: OID.paged_results, critical: true, value: encode_paged_value(size, cookie) });
const cookie_of = (message: ResponseMessage) => {
  const value = message.controls[0]!.value!;
  // SEQUENCE { INTEGER 0, OCTET STRING cookie }: the cookie is what follows the 7 bytes of headers and size.
  return value.subarray(7);
};

describe("limits", () => {
  test("time limit: past IDP_LDAP_TIME_LIMIT the search ends with timeLimitExceeded and what it found", async () => {
    let clock = 0;
    const session = await session_as(services("gitea"), t.gitea, () => (clock += 40_000));
    const { responses } = await session.handle({ id: 2, request: SUBTREE, controls: [] });
    expect(done(responses).response).toMatchObject({ op: "search_done", result: { code: RESULT.time_limit_exceeded } });
    // The containers come before the first page of users is read; the clock ran out after it.
    expect(entries(responses).slice(0, 3)).toEqual([BASE, `ou=people,${BASE}`, `ou=groups,${BASE}`]);
    expect(entries(responses).some((dn) => dn.startsWith("cn="))).toBe(false);
  });

  test("the client's shorter time limit applies too", async () => {
    let clock = 0;
    const session = await session_as(services("gitea"), t.gitea, () => (clock += 2_000));
    const { responses } = await session.handle({ id: 2, request: { ...SUBTREE, time_limit: 1 }, controls: [] });
    expect(done(responses).response).toMatchObject({ result: { code: RESULT.time_limit_exceeded } });
  });
});

describe("paged results cookies (RFC 2696)", () => {
  test("a cookie is good once, for its own search; size 0 abandons", async () => {
    const session = await session_as(services("gitea"), t.gitea);
    const first = (await session.handle({ id: 2, request: SUBTREE, controls: [paged(3, new Uint8Array(0))] })).responses;
    expect(entries(first)).toHaveLength(3);
    const cookie = cookie_of(done(first));
    expect(cookie.length).toBe(16);
    const other = (await session.handle({ id: 3, request: { ...SUBTREE, attributes: ["cn"] }, controls: [paged(3, cookie)] })).responses;
    expect(done(other).response).toMatchObject({ result: { code: RESULT.unwilling_to_perform } });
    // Refused, and spent: the right search cannot use it any more either.
    const again = (await session.handle({ id: 4, request: SUBTREE, controls: [paged(3, cookie)] })).responses;
    expect(done(again).response).toMatchObject({ result: { code: RESULT.unwilling_to_perform } });
    const fresh = cookie_of(done((await session.handle({ id: 5, request: SUBTREE, controls: [paged(3, new Uint8Array(0))] })).responses));
    const abandoned = (await session.handle({ id: 6, request: SUBTREE, controls: [paged(0, fresh)] })).responses;
    expect(abandoned).toHaveLength(1);
    expect(done(abandoned).response).toMatchObject({ result: { code: RESULT.success } });
    expect(cookie_of(done(abandoned)).length).toBe(0);
  });

  test("a malformed paged results value is a protocolError result, not a disconnection", async () => {
    const session = await session_as(services("gitea"), t.gitea);
    const { responses, after } = await session.handle({ id: 2, request: SUBTREE, controls: [{ oid: OID.paged_results, critical: true, value: Uint8Array.of(1, 2, 3) }] });
    expect(done(responses).response).toMatchObject({ result: { code: RESULT.protocol_error } });
    expect(after).toBe("continue");
  });
});

describe("reading the store", () => {
  test("a lookup by uid or mail reads one user, not the users table; other filters read it in pages", async () => {
    const session = await session_as(services("gitea"), t.gitea);
    const store = t.served.provider.store;
    const original = store.list_users;
    let scans = 0;
    store.list_users = (...args) => {
      scans++;
      return original.apply(store, args);
    };
    try {
      const filter = (f: Request & { op: "search" }) => session.handle({ id: 9, request: f, controls: [] });
      const by_uid = await filter({
        ...SUBTREE,
        filter: {
          type: "and",
          filters: [
            { type: "equal", attribute: "objectClass", value: "inetOrgPerson" },
            { type: "equal", attribute: "uid", value: "alice" },
          ],
        },
      });
      const by_mail = await filter({
        ...SUBTREE,
        filter: {
          type: "or",
          filters: [
            { type: "equal", attribute: "mail", value: "bob@example.com" },
            { type: "equal", attribute: "mail", value: "alice@example.com" },
          ],
        },
      });
      expect(entries(by_uid.responses)).toEqual([people("alice")]);
      expect(entries(by_mail.responses)).toEqual([people("alice")]);
      expect(scans).toBe(0);
      await filter({ ...SUBTREE, filter: { type: "substrings", attribute: "uid", initial: "a", any: [], final: null } });
      expect(scans).toBe(1);
    } finally {
      store.list_users = original;
    }
  });
});

describe("an account changed after its bind", () => {
  test("a service account limited to a group that is deleted sees nothing, never everything", async () => {
    const { add_service_account } = await import("../../../src/oidc/admin/ldap_service_accounts.ts");
    const group = await t.store.create_group({ name: "short-team" });
    await t.store.add_group_member(group.id, t.users.alice.id);
    const made = await add_service_account(t.store, { name: "team-app", group: "short-team" }, 1);
    const session = await session_as(services("team-app"), made.password);
    const users = { ...SUBTREE, filter: { type: "equal", attribute: "objectClass", value: "inetOrgPerson" } } as Request;
    expect(entries((await session.handle({ id: 2, request: users, controls: [] })).responses)).toEqual([people("alice")]);
    await t.store.delete_group(group.id);
    expect(entries((await session.handle({ id: 3, request: users, controls: [] })).responses)).toEqual([]);
  });

  test("a service account removed sees nothing from its next request", async () => {
    const { add_service_account } = await import("../../../src/oidc/admin/ldap_service_accounts.ts");
    const made = await add_service_account(t.store, { name: "short-lived" }, 1);
    const session = await session_as(services("short-lived"), made.password);
    expect(entries((await session.handle({ id: 2, request: SUBTREE, controls: [] })).responses).length).toBeGreaterThan(3);
    await t.store.delete_ldap_service_account("short-lived");
    const after = (await session.handle({ id: 3, request: SUBTREE, controls: [] })).responses;
    expect(entries(after)).toEqual([BASE, `ou=people,${BASE}`, `ou=groups,${BASE}`]);
  });

  test("a user disabled after binding no longer sees their own entry", async () => {
    const session = await session_as(people("bob"), t.password);
    const own: Request = { ...SUBTREE, base: people("bob"), scope: 0 };
    expect(entries((await session.handle({ id: 2, request: own, controls: [] })).responses)).toEqual([people("bob")]);
    await t.store.update_user(t.users.bob.id, { status: "disabled" });
    expect(done((await session.handle({ id: 3, request: own, controls: [] })).responses).response).toMatchObject({ result: { code: RESULT.no_such_object } });
  });
});
