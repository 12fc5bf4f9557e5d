/**
 * DELETE /register/:client_id: RFC 7592 §2.3, the client deregisters itself with its
 * registration access token. Its grants, codes and tokens go with it, and so does the
 * registration access token: a second DELETE is 401.
 */
import { Fw } from "../../../fw/index.ts";
import { PATHS } from "../../../oidc/discovery/paths.ts";
import { refuse_credentials_in_query } from "../../../oidc/clients/authentication.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { client_ip } from "../../middleware/proxy.ts";
import { client_for_registration_token, invalid_registration_token } from "../../../oidc/registration/access.ts";
import { audit } from "../../../oidc/registration/audit.ts";
import { no_store } from "./response.ts";

export const RegisterDelete = (idp: Provider) =>
  class RegisterDelete extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Empty) {
    static route = `DELETE ${PATHS.register}/:client_id`;

    async call() {
      no_store(this.response.headers);
      refuse_credentials_in_query(this.query, "bearer");
      const { client } = await client_for_registration_token(idp, this.headers.get("authorization"), this.params.client_id ?? "");
      // A concurrent DELETE may have won: the token then no longer names a client.
      if (!(await idp.store.delete_client(client.client_id))) throw invalid_registration_token(idp);
      await audit(idp, "client_deleted", client, client_ip(this.context, idp.config));
      // RFC 7592 §2.3: "204 No Content".
      return new Fw.Response.Empty();
    }
  };
