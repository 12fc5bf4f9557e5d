import { describe, expect, test } from "../../helpers/test_api.ts";
import { StoreConflictError, StoreReferenceError } from "../../../src/store/types.ts";
import { TRANSFER_TABLES } from "../../../src/store/rows/transfer.ts";
import { T0, uid } from "../fixtures.ts";
import type { SuiteContext } from "../suite.ts";
import { rejection } from "../../helpers/settle.ts";

export function transfer_tests(ctx: SuiteContext): void {
  describe("export and import (transfer)", () => {
    test("import_rows writes rows as given (hashes, versions, times, derived keys); export_rows reads them back in key order", async () => {
      const store = ctx.store();
      const [a, b] = [`b-${uid("u")}`, `a-${uid("u")}`];
      const user = (id: string, username: string) => ({
        ...Object.fromEntries(Object.keys(TRANSFER_TABLES[0]!.columns).map((c) => [c, null])),
        id,
        username,
        password_hash: "$argon2id$v=19$m=1024,t=1,p=1$x$y",
        email: `${username}@example.com`,
        email_verified: true,
        phone_number_verified: false,
        address: { country: "FR" },
        totp_secret: "JBSWY3DPEHPK3PXP",
        totp_enabled_at: T0,
        status: "active",
        created_at: T0,
        updated_at: T0 + 1,
        version: 7,
      });
      const zoe = `Zoe-${uid("n").slice(-8)}`;
      await store.import_rows([
        { table: "users", rows: [user(a, zoe), user(b, zoe.toLowerCase().replace("zoe", "amy"))] },
        { table: "user_recovery_codes", rows: [{ user_id: a, code_hash: "h1", created_at: T0, used_at: null }] },
      ]);
      const users = (await store.export_rows("users")).filter((u) => u.id === a || u.id === b);
      expect(users.map((u) => u.id)).toEqual([b, a]);
      expect(users[1]).toEqual(user(a, zoe));
      // The derived username key was written: the user signs in by any case of the name.
      expect((await store.get_user_by_username(zoe.toUpperCase()))?.id).toBe(a);
      expect((await store.export_rows("user_recovery_codes")).filter((r) => r.user_id === a)).toEqual([{ user_id: a, code_hash: "h1", created_at: T0, used_at: null }]);
    });

    test("a clash or a missing parent writes nothing of the whole import", async () => {
      const store = ctx.store();
      const id = uid("g");
      const name = (suffix: string) => `ops-${id.slice(-8)}-${suffix}`;
      const group = { id, name: name("a"), description: null, created_at: T0 };
      await store.import_rows([{ table: "groups", rows: [group] }]);
      const clash = await rejection(
        store.import_rows([
          {
            table: "groups",
            rows: [
              { ...group, id: uid("g"), name: name("b") },
              { ...group, id: uid("g"), name: name("a").toUpperCase() },
            ],
          },
        ]),
      );
      expect(clash).toBeInstanceOf(StoreConflictError);
      const orphan = await rejection(
        store.import_rows([
          { table: "groups", rows: [{ ...group, id: uid("g"), name: name("c") }] },
          { table: "group_members", rows: [{ group_id: id, user_id: uid("nobody"), created_at: T0, upstream: null }] },
        ]),
      );
      expect(orphan).toBeInstanceOf(StoreReferenceError);
      const mine = (await store.export_rows("groups")).filter((g) => String(g.name).startsWith(name("")));
      expect(mine.map((g) => g.name)).toEqual([name("a")]);
    });
  });
}
