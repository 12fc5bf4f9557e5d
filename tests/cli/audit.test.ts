/**
 * `idp audit list`: --type accepts only the event types the code records (and says which they
 * are); every event shows the username and client name beside their ids.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { AUDIT_EVENT_TYPES } from "../../src/store/types.ts";
import { sandbox, type Sandbox } from "./helpers.ts";

let box: Sandbox;
beforeAll(() => {
  box = sandbox();
});
afterAll(() => box.cleanup());

describe("idp audit list --type", () => {
  test("an unknown type is a usage error that lists the valid ones", async () => {
    const result = await box.run(["audit", "list", "--type", "bogus"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('unknown event type "bogus"; the types are: login, login_locked, two_factor,');
    expect(result.stderr).toContain("user_created");
    expect(result.stdout).toBe("");
  });

  test("every event type the code records is listed in AUDIT_EVENT_TYPES", () => {
    const src = join(import.meta.dirname, "..", "..", "src");
    const recorded = new Set<string>();
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (entry.name.endsWith(".ts")) {
          const text = readFileSync(path, "utf8");
          if (!/record_event\(|\.audit\(|add_audit_event\(|\baudit\(idp,/.test(text)) continue;
          // Option types of parse_args share the `type: "..."` shape; they are not events.
          for (const match of text.matchAll(/\btype: "([a-z_]+)"/g)) if (!["string", "boolean"].includes(match[1]!)) recorded.add(match[1]!);
          for (const match of text.matchAll(/\baudit\(idp, "([a-z_]+)"/g)) recorded.add(match[1]!);
        }
      }
    };
    walk(src);
    expect(recorded.size).toBeGreaterThan(10);
    expect([...recorded].filter((type) => !(AUDIT_EVENT_TYPES as readonly string[]).includes(type))).toEqual([]);
  });
});

describe("idp audit list shows names beside ids", () => {
  test("--json has username and client_name; the table shows them; null once deleted", async () => {
    const user = (await box.run(["users", "add", "frida", "--password-stdin", "--json"], { stdin: "a long passphrase" })).json<{ id: string }>();
    const client = (await box.run(["clients", "add", "--name", "Frida's App", "--redirect-uri", "https://app.example.com/cb", "--json"])).json<{ client_id: string }>();
    const events = (await box.run(["audit", "list", "--json"])).json<
      { type: string; user_id: string | null; username: string | null; client_id: string | null; client_name: string | null }[]
    >();
    const created = events.find((e) => e.type === "user_created")!;
    expect([created.user_id, created.username]).toEqual([user.id, "frida"]);
    const registered = events.find((e) => e.type === "client_registered")!;
    expect([registered.client_id, registered.client_name, registered.username]).toEqual([client.client_id, "Frida's App", null]);

    const table = (await box.run(["audit", "list"])).stdout;
    expect(table).toContain(`frida (${user.id})`);
    expect(table).toContain(`Frida's App (${client.client_id})`);

    await box.run(["users", "remove", "frida"]);
    const after = (await box.run(["audit", "list", "--user", user.id, "--json"])).json<{ username: string | null; user_id: string }[]>();
    expect(after.every((e) => e.username === null && e.user_id === user.id)).toBe(true);
  });
});
