/**
 * The LDAP listener (src/app/ldap_listener.ts) against hostile and broken clients, over raw
 * sockets: each named abuse case ends only the connection that did it, with a Notice of
 * Disconnection where RFC 4511 §4.4.1 wants one, and the server keeps answering everyone else.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { networkInterfaces } from "node:os";
import { integer, octets, sequence, TAG } from "../../src/oidc/ldap/ber.ts";
import { encode_request } from "../../src/oidc/ldap/client_codec.ts";
import { OID, RESULT, type Request, type ResponseMessage } from "../../src/oidc/ldap/protocol.ts";
import { free_port } from "../helpers/provider.ts";
import { raw_client, type RawClient } from "./raw.ts";
import { BASE, people, services, start_ldap_provider, type LdapProvider } from "./server.ts";

const WHO_AM_I: Request = { op: "extended", oid: OID.who_am_i, value: null };

/** The answer to Who am I? on a fresh connection: the server is still serving. */
async function still_serving(port: number): Promise<void> {
  const client = await raw_client(port);
  client.request(1, WHO_AM_I);
  expect((await client.next())?.response).toMatchObject({ op: "extended", result: { code: RESULT.success } });
  client.close();
}

/** The Notice of Disconnection (RFC 4511 §4.4.1) followed by the end of the connection. */
async function disconnected(client: RawClient, code: number, words: RegExp): Promise<void> {
  const notice = (await client.next()) as ResponseMessage;
  expect(notice.id).toBe(0);
  expect(notice.response).toMatchObject({ op: "extended", name: OID.notice_of_disconnection, result: { code, message: expect.stringMatching(words) } });
  await client.closed;
}

describe("abuse cases", () => {
  let t: LdapProvider;
  beforeAll(async () => {
    t = await start_ldap_provider({ ldap: { idle_timeout_seconds: 1 } });
  });
  afterAll(() => t?.stop());

  test("huge length prefix: 4 GiB announced, refused from the header with nothing of it read", async () => {
    const client = await raw_client(t.ldap_port);
    client.send(Uint8Array.of(0x30, 0x84, 0xff, 0xff, 0xff, 0xff, 0x02, 0x01));
    await disconnected(client, RESULT.protocol_error, /over the limit/);
    await still_serving(t.ldap_port);
  });

  test("not LDAP at all (an HTTP request on the LDAP port)", async () => {
    const client = await raw_client(t.ldap_port);
    client.send(new TextEncoder().encode("GET / HTTP/1.1\r\nHost: x\r\n\r\n"));
    await disconnected(client, RESULT.protocol_error, /SEQUENCE/);
  });

  test("deep filter nesting: a filter a thousand levels deep ends the connection, not the server", async () => {
    let filter = octets("objectClass", 0x87);
    for (let i = 0; i < 1000; i++) filter = sequence(0xa2, [filter]);
    const search = sequence(0x63, [
      octets(BASE),
      integer(2, TAG.enumerated),
      integer(0, TAG.enumerated),
      integer(0),
      integer(0),
      octets(Uint8Array.of(0), TAG.boolean),
      filter,
      sequence(TAG.sequence, []),
    ]);
    const client = await raw_client(t.ldap_port);
    client.send(sequence(TAG.sequence, [integer(1), search]));
    await disconnected(client, RESULT.protocol_error, /nested deeper/);
    await still_serving(t.ldap_port);
  });

  test("slow loris: a client trickling a request byte by byte is closed after the idle timeout", async () => {
    const client = await raw_client(t.ldap_port);
    const bind = sequence(TAG.sequence, [integer(1), sequence(0x60, [integer(3), octets(services("gitea")), octets("x".repeat(200), 0x80)])]);
    let sent = 0;
    let done = false;
    void client.closed.then(() => (done = true));
    // One byte every 100 ms would take 20 s to finish; the server stops waiting after ~1 s.
    while (!done && sent < bind.length) {
      client.send(bind.subarray(sent, sent + 1));
      sent++;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(done).toBe(true);
    expect(sent).toBeLessThan(bind.length);
  });

  test("a client that sends whole requests now and then stays connected past the idle timeout", async () => {
    const client = await raw_client(t.ldap_port);
    for (let id = 1; id <= 4; id++) {
      client.request(id, WHO_AM_I);
      expect((await client.next())?.id).toBe(id);
      await new Promise((resolve) => setTimeout(resolve, 400));
    }
    client.close();
  });

  test("pipelined requests are answered in order; abandon gets no answer; unbind ends the session", async () => {
    const client = await raw_client(t.ldap_port);
    client.request(1, { op: "bind", version: 3, name: services("gitea"), auth: { kind: "simple", password: t.gitea } });
    client.request(2, { op: "abandon", id: 1 });
    client.request(3, WHO_AM_I);
    client.request(4, { op: "extended", oid: "1.2.3.4", value: null });
    expect((await client.next())?.response).toMatchObject({ op: "bind", result: { code: 0 } });
    const who = (await client.next())!;
    expect(who.id).toBe(3);
    expect(new TextDecoder().decode((who.response as { value: Uint8Array }).value)).toBe(`dn:${services("gitea")}`);
    expect((await client.next())?.response).toMatchObject({ op: "extended", result: { code: RESULT.protocol_error } });
    client.request(5, { op: "unbind" });
    await client.closed;
  });

  test("an unknown critical control is refused (unavailableCriticalExtension); an unknown non-critical one is ignored", async () => {
    const client = await raw_client(t.ldap_port);
    client.send(encode_request({ id: 1, request: WHO_AM_I, controls: [{ oid: "1.2.3.4.5", critical: true, value: null }] }));
    expect((await client.next())?.response).toMatchObject({ result: { code: RESULT.unavailable_critical_extension } });
    client.send(encode_request({ id: 2, request: WHO_AM_I, controls: [{ oid: "1.2.3.4.5", critical: false, value: null }] }));
    expect((await client.next())?.response).toMatchObject({ result: { code: RESULT.success } });
    client.close();
  });

  test("a search with scope 3 (subordinate subtree) or an unknown scope is protocolError, and the connection goes on", async () => {
    const client = await raw_client(t.ldap_port);
    client.request(1, { op: "bind", version: 3, name: people("alice"), auth: { kind: "simple", password: t.password } });
    expect((await client.next())?.response).toMatchObject({ op: "bind", result: { code: 0 } });
    const search = (scope: number) => ({
      op: "search" as const,
      base: people("alice"),
      scope,
      deref: 0,
      size_limit: 0,
      time_limit: 0,
      types_only: false,
      filter: { type: "present" as const, attribute: "objectClass" },
      attributes: ["uid"],
    });
    for (const [id, scope] of [
      [2, 3],
      [3, 200],
    ] as const) {
      client.request(id, search(scope));
      const done = await client.next();
      expect(done).toMatchObject({ id, response: { op: "search_done", result: { code: RESULT.protocol_error } } });
      expect(done?.response.op === "search_done" && done.response.result.message).toContain(`scope ${scope} is not supported`);
    }
    client.request(4, search(0));
    expect((await client.next())?.response).toMatchObject({ op: "search_entry", dn: people("alice") });
    expect((await client.next())?.response).toMatchObject({ op: "search_done", result: { code: 0 } });
    client.close();
  });

  test("StartTLS on a connection that is TLS already (LDAPS) is an operations error (RFC 4511 §4.14.1)", async () => {
    const ldaps_port = Number(new URL(t.ldaps_url).port);
    const client = await raw_client(ldaps_port, { ca: t.cert });
    client.request(1, { op: "extended", oid: OID.start_tls, value: null });
    expect((await client.next())?.response).toMatchObject({ op: "extended", result: { code: RESULT.operations_error } });
    client.request(2, { op: "bind", version: 3, name: people("alice"), auth: { kind: "simple", password: t.password } });
    expect((await client.next())?.response).toMatchObject({ op: "bind", result: { code: 0 } });
    client.close();
  });
});

describe("without a certificate", () => {
  let t: LdapProvider;
  beforeAll(async () => {
    t = await start_ldap_provider({ ldap: { tls_cert: undefined, tls_key: undefined, ldaps_listen: undefined } });
  });
  afterAll(() => t?.stop());

  test("StartTLS is not offered: protocolError (RFC 4511 §4.14.2), and the root DSE does not list it", async () => {
    const client = await raw_client(t.ldap_port);
    client.request(1, { op: "extended", oid: OID.start_tls, value: null });
    expect((await client.next())?.response).toMatchObject({ op: "extended", result: { code: RESULT.protocol_error } });
    client.request(2, {
      op: "search",
      base: "",
      scope: 0,
      deref: 0,
      size_limit: 0,
      time_limit: 0,
      types_only: false,
      filter: { type: "present", attribute: "objectClass" },
      attributes: ["supportedExtension"],
    });
    expect((await client.next())?.response).toMatchObject({ op: "search_entry", attributes: [{ type: "supportedExtension", values: [OID.who_am_i] }] });
    client.close();
  });
});

describe("many concurrent connections", () => {
  let t: LdapProvider;
  beforeAll(async () => {
    t = await start_ldap_provider({ ldap: { max_connections: 20 } });
  });
  afterAll(() => t?.stop());

  test("past IDP_LDAP_MAX_CONNECTIONS a connection is closed at once; those within keep working", async () => {
    const held = await Promise.all(Array.from({ length: 20 }, () => raw_client(t.ldap_port)));
    // Each is answered, so the server has counted it.
    for (const [i, client] of held.entries()) {
      client.request(i + 1, WHO_AM_I);
      expect((await client.next())?.id).toBe(i + 1);
    }
    const extra = await Promise.all(Array.from({ length: 5 }, () => raw_client(t.ldap_port)));
    for (const client of extra) {
      client.request(1, WHO_AM_I);
      expect(await client.next()).toBeNull();
    }
    held[0]!.request(99, WHO_AM_I);
    expect((await held[0]!.next())?.id).toBe(99);
    for (const client of held) client.close();
    // Their places are given back.
    await new Promise((resolve) => setTimeout(resolve, 200));
    await still_serving(t.ldap_port);
  });
});

/** A non-loopback address of this machine, if it has one (connections from it are "another host"). */
const outside = Object.values(networkInterfaces())
  .flat()
  .find((i) => i !== undefined && !i.internal && i.family === "IPv4")?.address;

describe("binds in clear from another host", () => {
  let t: LdapProvider;
  let port: number;
  beforeAll(async () => {
    port = await free_port();
    if (outside !== undefined) t = await start_ldap_provider({ ldap: { listen: `0.0.0.0:${port}` } });
  });
  afterAll(() => t?.stop());

  test.skipIf(outside === undefined)("need TLS first: confidentialityRequired (RFC 4513 §5.1.2), before any password work", async () => {
    const client = await raw_client(port, { host: outside! });
    client.request(1, { op: "bind", version: 3, name: people("alice"), auth: { kind: "simple", password: t.password } });
    expect((await client.next())?.response).toMatchObject({ op: "bind", result: { code: RESULT.confidentiality_required } });
    client.close();
    const events = await t.store.list_audit_events({ user_id: t.users.alice.id });
    expect(events).toEqual([]);
  });
});
