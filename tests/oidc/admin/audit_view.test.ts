/**
 * The audit log's readable side (oidc/admin/audit.ts, http/pages/admin_audit.ts): every event
 * type in exactly one area with a catalog name in every language, who did it, and the CSV of an
 * export (RFC 4180 quoting, a header row, no formula for a spreadsheet).
 */
import { describe, expect, test } from "../../helpers/test_api.ts";
import { AUDIT_AREAS, audit_actor, audit_area, type NamedAuditEvent } from "../../../src/oidc/admin/audit.ts";
import { actor_message, audit_csv, audit_filters, csv_field, type_message } from "../../../src/http/pages/admin_audit.ts";
import { CATALOGS } from "../../../src/platform/locales.ts";
import { AUDIT_EVENT_TYPES } from "../../../src/store/types.ts";

const event = (over: Partial<NamedAuditEvent>): NamedAuditEvent => ({
  id: 1,
  at: 1_750_000_000,
  type: "login",
  user_id: null,
  client_id: null,
  ip: null,
  outcome: "success",
  details: null,
  username: null,
  client_name: null,
  ...over,
});

describe("audit areas and names", () => {
  test("every event type is in exactly one area, and the areas hold no other", () => {
    const listed = Object.values(AUDIT_AREAS).flat();
    expect([...listed].sort()).toEqual([...AUDIT_EVENT_TYPES].sort());
    expect(new Set(listed).size).toBe(listed.length);
    expect(audit_area("admin_console")).toBe("administration");
    expect(audit_area("no_such_type")).toBeNull();
  });

  test("every area and type has its name in every catalog", () => {
    const keys = [...Object.keys(AUDIT_AREAS).map((area) => `admin.audit.area.${area}`), ...AUDIT_EVENT_TYPES.map((type) => `admin.audit.type.${type}`)];
    for (const [locale, catalog] of Object.entries(CATALOGS)) expect({ locale, missing: keys.filter((key) => !(key in catalog)) }).toEqual({ locale, missing: [] });
    expect(type_message("no_such_type")).toEqual({ key: "admin.audit.type.unknown", values: { type: "no_such_type" } });
  });
});

describe("who did it", () => {
  test("the administrator, the admin API's client, the command line, the user, or nobody", () => {
    expect(audit_actor(event({ type: "admin_console", user_id: "u2", username: "bob", details: { actor: "user:u1", actor_username: "root", action: "user_created" } }))).toEqual({
      kind: "admin",
      name: "root",
    });
    expect(audit_actor(event({ type: "admin_api", client_id: "c1", client_name: "Provisioner", user_id: "u2" }))).toEqual({ kind: "api_client", name: "Provisioner" });
    expect(audit_actor(event({ type: "admin_api", client_id: "c1" }))).toEqual({ kind: "api_client", name: "c1" });
    expect(audit_actor(event({ type: "user_disabled", user_id: "u2", username: "bob", details: { via: "cli" } }))).toEqual({ kind: "cli", name: null });
    expect(audit_actor(event({ type: "password_change", user_id: "u2", username: "bob" }))).toEqual({ kind: "user", name: "bob" });
    expect(audit_actor(event({ type: "login", user_id: "u-deleted" }))).toEqual({ kind: "user", name: "u-deleted" });
    expect(audit_actor(event({ type: "client_deleted", client_id: "c1", details: { reason: "never_used" } }))).toEqual({ kind: "none", name: null });
    expect(actor_message({ kind: "cli", name: null })).toEqual({ key: "admin.audit.actor.cli" });
    expect(actor_message({ kind: "admin", name: "root" })).toEqual({ key: "admin.audit.actor.admin", values: { name: "root" } });
  });
});

describe("filters and CSV", () => {
  test("a period replaces since and until", () => {
    expect(audit_filters({ period: "24h", since: 5, until: 10, user: "bob" }, 100_000)).toEqual({
      type: undefined,
      user: "bob",
      client: undefined,
      since: 100_000 - 86_400,
      until: undefined,
    });
    expect(audit_filters({ since: 5, until: 10 }, 100_000)).toMatchObject({ since: 5, until: 10 });
  });

  test("fields are quoted when they hold a quote, comma or line break; a formula gets a leading quote", () => {
    expect(csv_field("plain")).toBe("plain");
    expect(csv_field('say "hi", then\nleave')).toBe('"say ""hi"", then\nleave"');
    expect(csv_field("=HYPERLINK(1)")).toBe("'=HYPERLINK(1)");
    expect(csv_field("-2+3")).toBe("'-2+3");
    expect(csv_field(null)).toBe("");
    expect(csv_field(42)).toBe("42");
    expect(csv_field({ a: "b" })).toBe('"{""a"":""b""}"');
  });

  test("a header row, then one CRLF-ended row per event", () => {
    const csv = audit_csv([event({ id: 7, type: "admin_console", user_id: "u2", username: "bob, jr", details: { actor_username: "root", action: "user_created" } })]);
    const lines = csv.split("\r\n");
    expect(lines[0]).toBe("id,at,type,area,outcome,actor_kind,actor,user_id,username,client_id,client_name,ip,details");
    expect(lines[1]).toBe('7,2025-06-15T15:06:40Z,admin_console,administration,success,admin,root,u2,"bob, jr",,,,"{""actor_username"":""root"",""action"":""user_created""}"');
    expect(lines[2]).toBe("");
  });
});
