/**
 * PUT /register/:client_id: RFC 7592 §2.2, the client replaces its metadata with its
 * registration access token. The body is the complete metadata: omitted members are removed (and
 * get their defaults again), null members count as omitted.
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { constant_time_equal, sha256 } from "../../../oidc/crypto/secrets.ts";
import { secret_for_method } from "../../../oidc/clients/method_secret.ts";
import { PATHS } from "../../../oidc/discovery/paths.ts";
import { refuse_credentials_in_query } from "../../../oidc/clients/authentication.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { client_ip } from "../../middleware/proxy.ts";
import { client_for_registration_token, invalid_registration_token } from "../../../oidc/registration/access.ts";
import { audit } from "../../../oidc/registration/audit.ts";
import { invalid_metadata } from "../../../oidc/registration/errors.ts";
import { registration_policy } from "../../../oidc/registration/policy.ts";
import { ClientInformationResponse, client_information, no_store } from "./response.ts";
import { REGISTRABLE, json_object, parse_metadata } from "../../../oidc/registration/schema.ts";
import { validate_metadata } from "../../../oidc/registration/validate.ts";
import { check_subject_type } from "../../../oidc/claims/pairwise.ts";
import type { ClientMetadata, ClientRow } from "../../../store/types.ts";

/** The body is parsed in call(): the route's client_id would hide the body's in merged input. */
export const RegistrationUpdateRequest = Fw.Request("RegistrationUpdateRequest", z.looseObject({}));

/** RFC 7592 §2.2: members of the response the update request "MUST NOT include". */
const SERVER_MEMBERS = ["registration_access_token", "registration_client_uri", "client_secret_expires_at", "client_id_issued_at"];

/** Checks client_id and client_secret of the body against the client (RFC 7592 §2.2). */
function check_identity(body: Record<string, unknown>, client: ClientRow): void {
  if (body.client_id !== client.client_id) throw invalid_metadata("client_id must be present and equal to the client's client_id (RFC 7592 §2.2)");
  const member = SERVER_MEMBERS.find((name) => name in body);
  if (member !== undefined) throw invalid_metadata(`${member} must not be sent in an update request (RFC 7592 §2.2)`);
  const secret = body.client_secret;
  if (secret === undefined || secret === null) return;
  // "The client MUST NOT be allowed to overwrite its existing client secret with its own chosen value."
  const matches = typeof secret === "string" && client.client_secret_hash !== null && constant_time_equal(sha256(secret), client.client_secret_hash);
  if (!matches) throw invalid_metadata("client_secret does not match the client's current secret (RFC 7592 §2.2)");
}

/** Server-side members (not registrable, e.g. skip_consent set by an operator) survive an update. */
function server_side(metadata: ClientMetadata): ClientMetadata {
  const kept: ClientMetadata = {};
  for (const [key, value] of Object.entries(metadata)) if (!(REGISTRABLE as readonly string[]).includes(key)) kept[key] = value;
  return kept;
}

export const RegisterUpdate = (idp: Provider) =>
  class RegisterUpdate extends Fw.Endpoint(RegistrationUpdateRequest, ClientInformationResponse) {
    static route = `PUT ${PATHS.register}/:client_id`;

    async call() {
      no_store(this.response.headers);
      refuse_credentials_in_query(this.query, "bearer");
      const { client, token } = await client_for_registration_token(idp, this.headers.get("authorization"), this.params.client_id ?? "");
      const body = json_object(this.headers.get("content-type"), this.request.body);
      check_identity(body, client);
      const metadata = validate_metadata(parse_metadata(body), registration_policy(idp));
      // OIDC Core §8.1, OIDC Registration §5: pairwise needs the salt; a sector_identifier_uri is fetched and checked.
      await check_subject_type(idp, metadata, client.client_id);

      // A client that moves to a secret-based method without having a secret gets a new one (in
      // this response only); one that moves away from secrets loses its secret (clients/method_secret.ts).
      const { patch, secret } = secret_for_method(client, metadata.token_endpoint_auth_method ?? "", idp.now());
      const updated = await idp.store.update_client(client.client_id, {
        metadata: { ...server_side(client.metadata), ...metadata },
        ...patch,
        updated_at: idp.now(),
      });
      if (updated === null) throw invalid_registration_token(idp);
      await audit(idp, "client_updated", updated, client_ip(this.context, idp.config), { secret_issued: secret !== null });
      // RFC 7592 §2.2: 200 with the client information, as for a read.
      return this.json(client_information(idp, updated, { client_secret: secret, registration_access_token: token }));
    }
  };
