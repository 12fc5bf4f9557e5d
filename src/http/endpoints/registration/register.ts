/**
 * POST /register: OpenID Connect Dynamic Client Registration 1.0 §3 and RFC 7591 §3. Who may
 * register follows `config.registration`: "open" (anyone), "token" (an initial access token,
 * RFC 7591 §3); with "off" this endpoint is not mounted at all.
 *
 * Metadata is read from the JSON body alone, after the access check (an unauthenticated caller
 * learns nothing about it); the framework's merged input would mix in query parameters. With
 * "open", each address registers at most `rate_limits.register_per_ip_per_day` times a day, and
 * the client is marked anonymous: never used, the purge deletes it
 * (oidc/registration/unused_clients.ts).
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { random_id, random_token, sha256 } from "../../../oidc/crypto/secrets.ts";
import { PATHS } from "../../../oidc/discovery/paths.ts";
import { refuse_credentials_in_query } from "../../../oidc/clients/authentication.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { client_ip } from "../../middleware/proxy.ts";
import { check_initial_access_token, count_anonymous_registration, use_initial_access_token } from "../../../oidc/registration/access.ts";
import { audit } from "../../../oidc/registration/audit.ts";
import { registration_policy } from "../../../oidc/registration/policy.ts";
import { ClientInformationResponse, client_information, no_store } from "./response.ts";
import { SECRET_AUTH_METHODS } from "../../../oidc/clients/method_secret.ts";
import { json_object, parse_metadata } from "../../../oidc/registration/schema.ts";
import { validate_metadata } from "../../../oidc/registration/validate.ts";
import { check_subject_type } from "../../../oidc/claims/pairwise.ts";

/** The body is parsed in call() by parse_metadata (see the file comment). */
export const RegistrationRequest = Fw.Request("RegistrationRequest", z.looseObject({}));

export const Register = (idp: Provider) =>
  class Register extends Fw.Endpoint(RegistrationRequest, ClientInformationResponse) {
    static route = `POST ${PATHS.register}`;

    async call() {
      no_store(this.response.headers);
      refuse_credentials_in_query(this.query, "bearer");
      const token_hash = idp.config.registration === "token" ? await check_initial_access_token(idp, this.headers.get("authorization")) : null;
      if (token_hash === null) await count_anonymous_registration(idp, client_ip(this.context, idp.config));
      const body = json_object(this.headers.get("content-type"), this.request.body);
      const metadata = validate_metadata(parse_metadata(body), registration_policy(idp));
      // OIDC Core §8.1, OIDC Registration §5: pairwise needs the salt; a sector_identifier_uri is fetched and checked.
      await check_subject_type(idp, metadata, null);
      // RFC 7591 §3: valid metadata spends one use of a limited token (atomic in the store).
      const initial_access_token = token_hash === null ? null : await use_initial_access_token(idp, token_hash);

      // RFC 7591 §3.2.1: a 256-bit secret for confidential clients, stored as SHA-256 (RFC 6819
      // §5.1.4.1.3); public clients (none) and key-based ones (private_key_jwt) get none.
      const secret = SECRET_AUTH_METHODS.has(metadata.token_endpoint_auth_method ?? "") ? random_token(32) : null;
      const registration_access_token = random_token(32);
      const now = idp.now();
      const client = await idp.store.create_client({
        client_id: random_id(),
        client_secret_hash: secret === null ? null : sha256(secret),
        client_secret_expires_at: 0,
        client_id_issued_at: now,
        registration_access_token_hash: sha256(registration_access_token),
        metadata,
        created_at: now,
        updated_at: now,
        anonymous: token_hash === null,
      });
      await audit(idp, "client_registered", client, client_ip(this.context, idp.config), {
        auth_method: metadata.token_endpoint_auth_method ?? null,
        ...(initial_access_token === null ? {} : { initial_access_token }),
      });
      // RFC 7591 §3.2.1: 201 Created with the client information.
      return this.json(client_information(idp, client, { client_secret: secret, registration_access_token }), 201);
    }
  };
