/**
 * POST /admin/api/v1/ldap/service-accounts/:name/rotate, with If-Match: a new password, in this
 * answer only; the old one stops working at once (binds fail from now).
 */
import { Fw } from "../../../../fw/index.ts";
import { rotate_service_account } from "../../../../oidc/admin/ldap_service_accounts.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { audit_target, require_match, with_etag, type OpenApiOperation } from "../common.ts";
import { LDAP_ACCOUNTS_API, LdapServiceAccountSecretSchema, service_account_of, service_account_view } from "./schemas.ts";

export const AdminLdapAccountRotate = (idp: Provider) =>
  class AdminLdapAccountRotate extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Json) {
    static route = `POST ${LDAP_ACCOUNTS_API}/:name/rotate`;
    static openapi: OpenApiOperation = {
      summary: "Give an LDAP service account a new password (shown only once); the old one stops working",
      tag: "ldap",
      response: LdapServiceAccountSecretSchema,
      etag: true,
      if_match: true,
    };

    async call() {
      const account = await service_account_of(idp, this.route_params.name ?? "");
      audit_target(this, { action: "ldap_service_account_rotated", details: { name: account.name } });
      require_match(this, service_account_view(idp, account));
      const made = await rotate_service_account(idp.store, account.name, idp.now());
      const view = with_etag(this, service_account_view(idp, made.account));
      return this.json({ ...view, password: made.password });
    }
  };
