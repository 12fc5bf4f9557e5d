/** GET /admin/api/v1/ldap/service-accounts: every LDAP service account, by name, with its bind DN; never a password or its hash. */
import { z } from "zod";
import { Fw } from "../../../../fw/index.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { audit_target, type OpenApiOperation } from "../common.ts";
import { LDAP_ACCOUNTS_API, LdapServiceAccountSchema, service_account_view } from "./schemas.ts";

export const AdminLdapAccountList = (idp: Provider) =>
  class AdminLdapAccountList extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Json) {
    static route = `GET ${LDAP_ACCOUNTS_API}`;
    static openapi: OpenApiOperation = {
      summary: "List LDAP service accounts (never their passwords)",
      tag: "ldap",
      response: z.object({ items: z.array(LdapServiceAccountSchema) }),
    };

    async call() {
      audit_target(this, { action: "ldap_service_accounts_listed" });
      return this.json({ items: (await idp.store.list_ldap_service_accounts()).map((account) => service_account_view(idp, account)) });
    }
  };
