/**
 * The LDAP listener under malformed PDUs (src/app/ldap_listener.ts, src/oidc/ldap/): valid
 * requests with bytes changed, cut, doubled or appended, and random bytes, each sent on a real
 * connection. Whatever arrives, a connection gets answers or a Notice of Disconnection; the
 * server logs no failure (nothing was thrown but the codec's BerError), keeps serving, holds no
 * connection open for the garbage, and its memory does not grow with the number of PDUs.
 */
import { afterAll, beforeAll, expect, test } from "../helpers/test_api.ts";
import fc from "fast-check";
import { encode_request } from "../../src/oidc/ldap/client_codec.ts";
import { OID, type RequestMessage } from "../../src/oidc/ldap/protocol.ts";
import { raw_client } from "../ldap/raw.ts";
import { BASE, people, services, start_ldap_provider, type LdapProvider } from "../ldap/server.ts";

let t: LdapProvider;
const failures: Record<string, unknown>[] = [];
beforeAll(async () => {
  t = await start_ldap_provider({ ldap: { idle_timeout_seconds: 2 }, log: (line) => void (line.level === "error" && failures.push(line)) });
});
afterAll(() => t?.stop());

/** Requests an application sends, from which the malformed ones are made. */
const SEEDS = (): RequestMessage[] => [
  { id: 1, request: { op: "bind", version: 3, name: services("gitea"), auth: { kind: "simple", password: t.gitea } }, controls: [] },
  {
    id: 2,
    request: {
      op: "search",
      base: BASE,
      scope: 2,
      deref: 0,
      size_limit: 10,
      time_limit: 5,
      types_only: false,
      filter: {
        type: "and",
        filters: [
          { type: "equal", attribute: "objectClass", value: "inetOrgPerson" },
          { type: "substrings", attribute: "uid", initial: "a", any: ["l"], final: null },
        ],
      },
      attributes: ["uid", "memberOf", "+"],
    },
    controls: [{ oid: OID.paged_results, critical: true, value: Uint8Array.of(0x30, 0x05, 0x02, 0x01, 0x02, 0x04, 0x00) }],
  },
  { id: 3, request: { op: "compare", entry: people("alice"), attribute: "mail", value: "alice@example.com" }, controls: [] },
  { id: 4, request: { op: "extended", oid: OID.who_am_i, value: null }, controls: [] },
  { id: 5, request: { op: "write", kind: "modify", content: Uint8Array.of(0x04, 0x01, 0x61, 0x30, 0x00) }, controls: [] },
];

type Mutation = { kind: "flip"; edits: [number, number][] } | { kind: "cut"; at: number } | { kind: "append"; tail: Uint8Array } | { kind: "random"; bytes: Uint8Array };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant("flip" as const), edits: fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 6 }) }),
  fc.record({ kind: fc.constant("cut" as const), at: fc.nat() }),
  fc.record({ kind: fc.constant("append" as const), tail: fc.uint8Array({ minLength: 1, maxLength: 40 }) }),
  fc.record({ kind: fc.constant("random" as const), bytes: fc.uint8Array({ minLength: 1, maxLength: 200 }) }),
);

function mutate(pdu: Uint8Array, m: Mutation): Uint8Array {
  switch (m.kind) {
    case "flip": {
      const out = Uint8Array.from(pdu);
      for (const [at, value] of m.edits) out[at % out.length] = value;
      return out;
    }
    case "cut":
      return pdu.subarray(0, m.at % pdu.length);
    case "append":
      return Uint8Array.from([...pdu, ...m.tail]);
    case "random":
      return m.bytes;
  }
}

function heap(): number {
  (globalThis as { Bun?: { gc(force: boolean): void } }).Bun?.gc(true);
  return process.memoryUsage().heapUsed;
}

/** Sends `pdus` on one connection, then reads until the server answers them all, disconnects, or goes quiet. */
async function send_all(pdus: Uint8Array[]): Promise<void> {
  const client = await raw_client(t.ldap_port);
  for (const pdu of pdus) client.send(pdu);
  // A truncated PDU leaves the server waiting for the rest: it is closed by the idle timeout; we do not wait for that.
  for (let i = 0; i < pdus.length + 2; i++) {
    const next = await client.next(250).catch(() => null);
    if (next === null) break;
  }
  client.close();
}

test("malformed PDUs never crash the server nor leak: answers or a disconnection, nothing thrown, memory flat", async () => {
  const seeds = SEEDS().map(encode_request);
  const cases = fc.sample(fc.tuple(fc.integer({ min: 0, max: seeds.length - 1 }), mutation, fc.boolean()), { numRuns: 300, seed: 20_530 });
  // The first round warms everything up; the second must not grow the heap it leaves.
  let before = 0;
  for (const round of [0, 1]) {
    if (round === 1) before = heap();
    for (let i = 0; i < cases.length; i += 25) {
      await Promise.all(cases.slice(i, i + 25).map(([seed, m, valid_first]) => send_all([...(valid_first ? [seeds[3]!] : []), mutate(seeds[seed]!, m), seeds[3]!])));
    }
  }
  const grown = heap() - before;
  expect(failures).toEqual([]);
  expect(grown).toBeLessThan(16 * 1024 * 1024);
  // The garbage holds no connection once the idle timeout closed the ones left waiting, and the server still serves.
  await new Promise((resolve) => setTimeout(resolve, 2500));
  expect(t.served.ldap?.connections()).toBe(0);
  const client = await raw_client(t.ldap_port);
  client.request(1, { op: "extended", oid: OID.who_am_i, value: null });
  expect((await client.next())?.id).toBe(1);
  client.close();
}, 120_000);
