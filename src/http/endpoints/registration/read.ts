/**
 * GET /register/:client_id: RFC 7592 §2.1, the client reads its registration with its
 * registration access token. The secret is not in the answer (RFC 7592 §3 makes it optional, and
 * only its hash is stored).
 */
import { Fw } from "../../../fw/index.ts";
import { PATHS } from "../../../oidc/discovery/paths.ts";
import { refuse_credentials_in_query } from "../../../oidc/clients/authentication.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { client_for_registration_token } from "../../../oidc/registration/access.ts";
import { ClientInformationResponse, client_information, no_store } from "./response.ts";

export const RegisterRead = (idp: Provider) =>
  class RegisterRead extends Fw.Endpoint(Fw.EmptyRequest, ClientInformationResponse) {
    static route = `GET ${PATHS.register}/:client_id`;

    async call() {
      no_store(this.response.headers);
      refuse_credentials_in_query(this.query, "bearer");
      const { client, token } = await client_for_registration_token(idp, this.headers.get("authorization"), this.params.client_id ?? "");
      return this.json(client_information(idp, client, { client_secret: null, registration_access_token: token }));
    }
  };
