import { describe, expect, test } from "../../helpers/test_api.ts";
import { StoreConflictError, StoreReferenceError } from "../../../src/store/types.ts";
import { code_input, concurrently, seed_pair, T0, uid } from "../fixtures.ts";
import type { SuiteContext } from "../suite.ts";
import { rejection } from "../../helpers/settle.ts";
import { run, script_command } from "../../helpers/spawn.ts";

/** Runs consume_worker.ts in `processes` separate processes against the same database. */
export async function in_other_processes(url: string, kind: "code" | "refresh", hash: string, processes: number, attempts: number, now: number): Promise<string[]> {
  const worker = new URL("../consume_worker.ts", import.meta.url).pathname;
  const runs = Array.from({ length: processes }, async () => {
    const { code, stdout, stderr } = await run([...script_command(worker), url, kind, hash, String(attempts), String(now)], { env: process.env });
    if (code !== 0) throw new Error(`worker failed (${code}): ${stderr}`);
    return JSON.parse(stdout) as string[];
  });
  return (await Promise.all(runs)).flat();
}

export function code_tests(ctx: SuiteContext): void {
  describe("authorization codes", () => {
    test("insert_code and get_code round-trip every field", async () => {
      const store = ctx.store();
      const { user, client } = await seed_pair(store);
      const code = await store.insert_code(
        code_input(user, client, {
          session_id_hash: "sess",
          nonce: "n-0S6",
          code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
          code_challenge_method: "S256",
          acr: "urn:mfa",
          amr: ["pwd", "otp"],
          claims: { id_token: { email: { essential: true } } },
        }),
      );
      expect(code.consumed_at).toBeNull();
      expect(await store.get_code(code.code_hash)).toEqual(code);
      expect(await store.get_code(uid("code"))).toBeNull();
    });

    test("consume_code: ok once, then reused; unknown is not_found", async () => {
      const store = ctx.store();
      const { user, client } = await seed_pair(store);
      const code = await store.insert_code(code_input(user, client));
      const first = await store.consume_code(code.code_hash, T0 + 1);
      expect(first).toEqual({ status: "ok", code: { ...code, consumed_at: T0 + 1 } });
      const again = await store.consume_code(code.code_hash, T0 + 2);
      expect(again.status).toBe("reused");
      if (again.status === "reused") expect(again.code).toMatchObject({ grant_id: code.grant_id, consumed_at: T0 + 1 });
      expect(await store.consume_code(uid("code"), T0)).toEqual({ status: "not_found" });
    });

    test("consume_code of an expired code says expired, and it cannot be used afterwards", async () => {
      const store = ctx.store();
      const { user, client } = await seed_pair(store);
      const code = await store.insert_code(code_input(user, client, { expires_at: T0 + 60 }));
      expect((await store.consume_code(code.code_hash, T0 + 60)).status).toBe("expired");
      expect((await store.consume_code(code.code_hash, T0 + 1)).status).toBe("reused");
    });

    test("20 concurrent consume_code of one code: exactly one ok", async () => {
      const store = ctx.store();
      const { user, client } = await seed_pair(store);
      const code = await store.insert_code(code_input(user, client));
      const results = await concurrently(20, () => store.consume_code(code.code_hash, T0 + 1));
      expect(results.filter((r) => r.status === "ok")).toHaveLength(1);
      expect(results.filter((r) => r.status === "reused")).toHaveLength(19);
    });

    test("concurrent consume_code from two store instances: exactly one ok", async () => {
      const store = ctx.store();
      const other = await ctx.second();
      const { user, client } = await seed_pair(store);
      const code = await store.insert_code(code_input(user, client));
      const results = await concurrently(20, (i) => (i % 2 ? other : store).consume_code(code.code_hash, T0 + 1));
      expect(results.filter((r) => r.status === "ok")).toHaveLength(1);
    });

    test("concurrent consume_code from separate processes: exactly one ok", async () => {
      const store = ctx.store();
      const { user, client } = await seed_pair(store);
      const code = await store.insert_code(code_input(user, client));
      const statuses = await in_other_processes(ctx.target().url, "code", code.code_hash, 3, 5, T0 + 1);
      expect(statuses).toHaveLength(15);
      expect(statuses.filter((s) => s === "ok")).toHaveLength(1);
      expect(statuses.filter((s) => s === "reused")).toHaveLength(14);
    }, 30_000);

    test("a duplicate code hash conflicts; a code for an unknown client is a reference error", async () => {
      const store = ctx.store();
      const { user, client } = await seed_pair(store);
      const code = await store.insert_code(code_input(user, client));
      expect(await rejection(store.insert_code(code_input(user, client, { code_hash: code.code_hash })))).toBeInstanceOf(StoreConflictError);
      expect(await rejection(store.insert_code(code_input(user, client, { client_id: uid("ghost") })))).toBeInstanceOf(StoreReferenceError);
    });
  });
}
