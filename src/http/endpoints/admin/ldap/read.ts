/** GET /admin/api/v1/ldap/service-accounts/:name: the account with its bind DN and an ETag; never its password. */
import { Fw } from "../../../../fw/index.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { audit_target, with_etag, type OpenApiOperation } from "../common.ts";
import { LDAP_ACCOUNTS_API, LdapServiceAccountSchema, service_account_of, service_account_view } from "./schemas.ts";

export const AdminLdapAccountRead = (idp: Provider) =>
  class AdminLdapAccountRead extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Json) {
    static route = `GET ${LDAP_ACCOUNTS_API}/:name`;
    static openapi: OpenApiOperation = { summary: "Read an LDAP service account", tag: "ldap", response: LdapServiceAccountSchema, etag: true };

    async call() {
      const account = await service_account_of(idp, this.route_params.name ?? "");
      audit_target(this, { action: "ldap_service_account_read", details: { name: account.name } });
      return this.json(with_etag(this, service_account_view(idp, account)));
    }
  };
