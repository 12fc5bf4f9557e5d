/**
 * `idp clients add --logo-uri --policy-uri --tos-uri --client-uri`: the display metadata of OIDC
 * Registration §2 the consent page shows (tests/http/branding.test.ts). Stored when https,
 * refused otherwise with the flag named and nothing created.
 */
import { afterEach, beforeEach, describe, expect, test } from "../helpers/test_api.ts";
import { open_store } from "../../src/store/open.ts";
import { sandbox, type Sandbox } from "./helpers.ts";

let box: Sandbox;
beforeEach(() => {
  box = sandbox();
});
afterEach(() => box.cleanup());

function add(...extra: string[]) {
  return box.run(["clients", "add", "--name", "Photos", "--redirect-uri", "https://app.example.com/cb", ...extra]);
}

async function client_count(): Promise<number> {
  const store = await open_store(box.env.DATABASE_URL!);
  try {
    return (await store.list_clients({ limit: 100 })).length;
  } finally {
    await store.close();
  }
}

describe("idp clients add display metadata", () => {
  test("https URLs are stored and shown", async () => {
    const result = await add(
      "--json",
      "--logo-uri",
      "https://cdn.example.com/logo.png",
      "--policy-uri",
      "https://app.example.com/privacy",
      "--tos-uri",
      "https://app.example.com/terms",
      "--client-uri",
      "https://app.example.com/",
    );
    expect(result.code).toBe(0);
    expect(result.json<Record<string, unknown>>()).toMatchObject({
      logo_uri: "https://cdn.example.com/logo.png",
      policy_uri: "https://app.example.com/privacy",
      tos_uri: "https://app.example.com/terms",
      client_uri: "https://app.example.com/",
    });
  });

  test("anything but https is refused, naming the flag, and creates nothing", async () => {
    for (const [flag, value] of [
      ["--logo-uri", "http://cdn.example.com/logo.png"],
      ["--policy-uri", "javascript:alert(1)"],
      ["--tos-uri", "https://user:pw@app.example.com/terms"],
      ["--client-uri", "not a url"],
    ] as const) {
      const result = await add(flag, value);
      expect([result.code, result.stderr]).toEqual([1, `error: ${flag} "${value}" must be an https URL without user or password (the consent page shows nothing else)\n`]);
    }
    expect(await client_count()).toBe(0);
  });
});
