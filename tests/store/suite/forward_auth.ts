import { describe, expect, test } from "../../helpers/test_api.ts";
import { StoreConflictError, StoreReferenceError, type Store } from "../../../src/store/types.ts";
import { concurrently, seed_user, T0, uid } from "../fixtures.ts";
import type { SuiteContext } from "../suite.ts";
import { rejection } from "../../helpers/settle.ts";

async function seed_session(store: Store) {
  const user = await seed_user(store);
  return store.create_session({ id_hash: uid("session"), user_id: user.id, auth_time: T0, amr: ["pwd", "otp"], expires_at: T0 + 3600, created_at: T0 });
}

export function forward_auth_tests(ctx: SuiteContext): void {
  describe("protected applications (forward authentication)", () => {
    test("create, get, list by name and by host (longest path first), update, delete; name and host+path are unique", async () => {
      const store = ctx.store();
      const host = `${uid("h").toLowerCase()}.example.com`;
      const a = uid("app").toLowerCase();
      const b = uid("app").toLowerCase();
      const root = await store.create_protected_app({ name: a, url: `https://${host}`, host, path: "/", created_at: T0 });
      expect(root).toEqual({ name: a, url: `https://${host}`, host, path: "/", allowed_groups: [], require_2fa: false, rules: [], created_at: T0, updated_at: T0 });
      const rules = [
        { prefix: "/grafana/admin", groups: ["admins"], require_2fa: true },
        { prefix: "/grafana/public", groups: [], require_2fa: false },
      ];
      const nested = await store.create_protected_app({
        name: b,
        url: `https://${host}/grafana`,
        host,
        path: "/grafana",
        allowed_groups: ["staff", "ops"],
        require_2fa: true,
        rules,
      });
      expect(await store.get_protected_app(b)).toEqual(nested);
      expect(await store.get_protected_app(uid("none"))).toBeNull();
      expect((await store.list_protected_apps_for_host(host)).map((app) => app.name)).toEqual([b, a]);
      expect(await store.list_protected_apps_for_host("other.example.com")).toEqual([]);
      expect((await store.list_protected_apps()).filter((app) => app.host === host).map((app) => app.name)).toEqual([a, b].sort());
      expect(await rejection(store.create_protected_app({ name: a, url: "https://x.example", host: "x.example", path: "/" }))).toBeInstanceOf(StoreConflictError);
      expect(await rejection(store.create_protected_app({ name: uid("app").toLowerCase(), url: `https://${host}/grafana`, host, path: "/grafana" }))).toBeInstanceOf(
        StoreConflictError,
      );

      const updated = await store.update_protected_app(b, { allowed_groups: [], require_2fa: false, rules: [], updated_at: T0 + 5 });
      expect(updated).toEqual({ ...nested, allowed_groups: [], require_2fa: false, rules: [], updated_at: T0 + 5 });
      expect(await store.get_protected_app(b)).toEqual(updated);
      expect(await rejection(store.update_protected_app(b, { path: "/" }))).toBeInstanceOf(StoreConflictError);
      expect(await store.update_protected_app(uid("none"), { require_2fa: true })).toBeNull();
      expect(await store.delete_protected_app(b)).toBe(true);
      expect(await store.delete_protected_app(b)).toBe(false);
      expect((await store.list_protected_apps_for_host(host)).map((app) => app.name)).toEqual([a]);
    });

    test("a forward-auth cookie stands for its session in one read, and goes with it", async () => {
      const store = ctx.store();
      const session = await seed_session(store);
      const token = uid("fa");
      await store.create_forward_auth_token({ id_hash: token, session_id_hash: session.id_hash, created_at: T0 });
      expect(await store.get_forward_auth_session(token)).toEqual(session);
      expect(await store.get_forward_auth_session(uid("fa"))).toBeNull();
      expect(await rejection(store.create_forward_auth_token({ id_hash: uid("fa"), session_id_hash: uid("gone") }))).toBeInstanceOf(StoreReferenceError);
      expect(await store.delete_session(session.id_hash)).toBe(true);
      expect(await store.get_forward_auth_session(token)).toBeNull();
    });

    test("a host-only cookie opens its host only; the domain cookie is not one for a host", async () => {
      const store = ctx.store();
      const session = await seed_session(store);
      const [domain, host_only] = [uid("fa"), uid("fa")];
      await store.create_forward_auth_token({ id_hash: domain, session_id_hash: session.id_hash, created_at: T0 });
      await store.create_forward_auth_token({ id_hash: host_only, session_id_hash: session.id_hash, host: "wiki.other.example", created_at: T0 });
      expect(await store.get_forward_auth_session(host_only, "wiki.other.example")).toEqual(session);
      expect(await store.get_forward_auth_session(host_only, "mail.other.example")).toBeNull();
      expect(await store.get_forward_auth_session(host_only)).toBeNull();
      expect(await store.get_forward_auth_session(domain, "wiki.other.example")).toBeNull();
      expect(await store.get_forward_auth_session(domain, null)).toEqual(session);
      await store.delete_session(session.id_hash);
      expect(await store.get_forward_auth_session(host_only, "wiki.other.example")).toBeNull();
    });

    test("a callback code is taken once, atomically; not once expired; it goes with its session; expired ones are cleared", async () => {
      const store = ctx.store();
      const session = await seed_session(store);
      const code = {
        code_hash: uid("code"),
        session_id_hash: session.id_hash,
        host: "wiki.other.example",
        target: "https://wiki.other.example/a?b=1",
        expires_at: T0 + 60,
        created_at: T0,
      };
      await store.create_forward_auth_code(code);
      const takes = await concurrently(8, () => store.take_forward_auth_code(code.code_hash, T0 + 1));
      expect(takes.filter((taken) => taken !== null)).toEqual([code]);
      expect(await store.take_forward_auth_code(code.code_hash, T0 + 1)).toBeNull();
      const late = { ...code, code_hash: uid("code") };
      await store.create_forward_auth_code(late);
      expect(await store.take_forward_auth_code(late.code_hash, T0 + 60)).toBeNull();
      expect(await rejection(store.create_forward_auth_code({ ...code, code_hash: uid("code"), session_id_hash: uid("gone") }))).toBeInstanceOf(StoreReferenceError);
      const gone = { ...code, code_hash: uid("code") };
      await store.create_forward_auth_code(gone);
      await store.delete_session(session.id_hash);
      expect(await store.take_forward_auth_code(gone.code_hash, T0 + 1)).toBeNull();
      // A new code clears the expired ones.
      const other = await seed_session(store);
      const stale = { ...code, code_hash: uid("code"), session_id_hash: other.id_hash };
      await store.create_forward_auth_code(stale);
      await store.create_forward_auth_code({ ...stale, code_hash: uid("code"), expires_at: T0 + 200, created_at: T0 + 100 });
      expect(await store.take_forward_auth_code(stale.code_hash, T0)).toBeNull();
    });

    test("a session's access to an application is recorded once, atomically; nothing for a session or application that is gone", async () => {
      const store = ctx.store();
      const session = await seed_session(store);
      const name = uid("app").toLowerCase();
      await store.create_protected_app({ name, url: `https://${name}.example`, host: `${name}.example`, path: "/" });
      const firsts = await concurrently(8, () => store.record_protected_app_access(session.id_hash, name, T0));
      expect(firsts.filter(Boolean).length).toBe(1);
      expect(await store.record_protected_app_access(session.id_hash, name, T0)).toBe(false);
      expect(await store.record_protected_app_access(uid("gone"), name, T0)).toBe(false);
      expect(await store.record_protected_app_access(session.id_hash, uid("gone"), T0)).toBe(false);
      // The rows go with the application: registered again, it is a first access again.
      await store.delete_protected_app(name);
      await store.create_protected_app({ name, url: `https://${name}.example`, host: `${name}.example`, path: "/" });
      expect(await store.record_protected_app_access(session.id_hash, name, T0)).toBe(true);
      // And with the session.
      await store.delete_session(session.id_hash);
      expect(await store.record_protected_app_access(session.id_hash, name, T0)).toBe(false);
    });
  });
}
