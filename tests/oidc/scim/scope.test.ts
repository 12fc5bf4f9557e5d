/** The `scim` scope is kept like `admin` (oidc/admin/scope.ts): only for admin-flagged clients, only from client_credentials. */
import { describe, expect, test } from "../../helpers/test_api.ts";
import { check_scope } from "../../../src/oidc/claims/scopes.ts";
import { client_credentials_scope } from "../../../src/oidc/grants/client_credentials.ts";

describe("the scim scope", () => {
  test("the authorization endpoint refuses it, whatever the client registered", () => {
    const checked = check_scope("openid scim", { scope: "openid scim" } as never);
    expect(checked).toEqual({ ok: false, error: "invalid_scope", description: "the scim scope is only issued by the client_credentials grant" });
  });

  test("client_credentials grants it only to an admin-flagged client, and apart from admin", () => {
    expect(client_credentials_scope("scim admin", "scim", true)).toEqual(["scim"]);
    expect(client_credentials_scope("scim", undefined, false)).toEqual([]);
    expect(() => client_credentials_scope("scim", "scim", false)).toThrow("this client may not request: scim");
  });
});
