/**
 * POST /admin/api/v1/ldap/service-accounts: a new service account, as `idp ldap service-accounts
 * add` makes one. Its password (256 random bits) is in this answer only: stored as its SHA-256,
 * nobody can read it again (rotate makes a new one).
 */
import { Fw } from "../../../../fw/index.ts";
import { add_service_account } from "../../../../oidc/admin/ldap_service_accounts.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { audit_target, with_etag, type OpenApiOperation } from "../common.ts";
import { LDAP_ACCOUNTS_API, LdapServiceAccountCreateSchema, LdapServiceAccountSecretSchema, service_account_view } from "./schemas.ts";

export const AdminLdapAccountCreateRequest = Fw.Request("AdminLdapAccountCreateRequest", LdapServiceAccountCreateSchema, { from: ["body"] });

export const AdminLdapAccountCreate = (idp: Provider) =>
  class AdminLdapAccountCreate extends Fw.Endpoint(AdminLdapAccountCreateRequest, Fw.Response.Json) {
    static route = `POST ${LDAP_ACCOUNTS_API}`;
    static openapi: OpenApiOperation = {
      summary: "Create an LDAP service account; the answer holds its password, shown only once",
      tag: "ldap",
      body: LdapServiceAccountCreateSchema,
      response: LdapServiceAccountSecretSchema,
      status: 201,
      etag: true,
    };

    async call() {
      const input = this.admin_ldap_account_create_request;
      audit_target(this, { action: "ldap_service_account_created", details: { name: input.name } });
      const made = await add_service_account(idp.store, input, idp.now());
      audit_target(this, { action: "ldap_service_account_created", details: { name: made.account.name, group: made.account.group_name } });
      this.response.headers.set("location", `${LDAP_ACCOUNTS_API}/${encodeURIComponent(made.account.name)}`);
      // The ETag is the account's (what a GET answers), not this answer's with the password.
      const view = with_etag(this, service_account_view(idp, made.account));
      return this.json({ ...view, password: made.password }, 201);
    }
  };
