/** DELETE /admin/api/v1/ldap/service-accounts/:name, with If-Match: its next bind fails, and sessions bound with it see nothing more. */
import { Fw } from "../../../../fw/index.ts";
import { remove_service_account } from "../../../../oidc/admin/ldap_service_accounts.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { audit_target, require_match, type OpenApiOperation } from "../common.ts";
import { LDAP_ACCOUNTS_API, service_account_of, service_account_view } from "./schemas.ts";

export const AdminLdapAccountDelete = (idp: Provider) =>
  class AdminLdapAccountDelete extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Empty) {
    static route = `DELETE ${LDAP_ACCOUNTS_API}/:name`;
    static openapi: OpenApiOperation = { summary: "Remove an LDAP service account", tag: "ldap", status: 204, if_match: true };

    async call() {
      const account = await service_account_of(idp, this.route_params.name ?? "");
      audit_target(this, { action: "ldap_service_account_removed", details: { name: account.name } });
      require_match(this, service_account_view(idp, account));
      await remove_service_account(idp.store, account.name);
      return new Fw.Response.Empty();
    }
  };
