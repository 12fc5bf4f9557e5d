/**
 * POST /par: the pushed authorization request endpoint (RFC 9126 §2). The client authenticates
 * exactly as at /token (oidc/clients/authentication.ts, with its failure limits), posts the parameters of an
 * authorization request, and gets back a single-use `request_uri` to send the browser to
 * /authorize with (par.ts). Errors are in the OAuth JSON shape (§2.3); the answer and its errors
 * are no-store with CORS (ProtocolHandler), like /token.
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { authenticated_client, refuse_credentials_in_query, type CredentialParams } from "../../../oidc/clients/authentication.ts";
import { OAuthError } from "../../../oidc/errors.ts";
import { FAPI_SIGNING_ALGS, is_fapi } from "../../../oidc/clients/fapi.ts";
import { token_request_proof } from "../../../oidc/tokens/dpop.ts";
import { PATHS } from "../../../oidc/discovery/paths.ts";
import { push_request } from "../../../oidc/authorize/par.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { invalid_request } from "../../errors.ts";
import { client_ip } from "../../middleware/proxy.ts";

/**
 * Every parameter of the form body as sent: a string, or an array when repeated (refused by the
 * rules, naming it). RFC 9126 §2.1: the request is the body; the query string is not part of it.
 */
export const ParRequest = Fw.Request("ParRequest", z.record(z.string(), z.union([z.string(), z.array(z.string())])), { on_invalid: invalid_request, from: ["body"] });

const CREDENTIAL_FIELDS = ["client_id", "client_secret", "client_assertion", "client_assertion_type"] as const;

export const Par = (idp: Provider) =>
  class Par extends Fw.Endpoint(ParRequest, Fw.Response.Json) {
    static route = `POST ${PATHS.par}`;

    async call() {
      refuse_credentials_in_query(this.query, "client");
      const body = this.par_request;
      const credentials: CredentialParams = {};
      for (const name of CREDENTIAL_FIELDS) {
        const value = body[name];
        // RFC 6749 §3.1: parameters MUST NOT be included more than once.
        if (Array.isArray(value)) throw new OAuthError("invalid_request", `${name} was sent more than once`);
        if (value !== undefined) credentials[name] = value;
      }
      const client = await authenticated_client(idp, this.headers, credentials, "par", () => client_ip(this.context, idp.config));
      // RFC 9449 §10.1: a DPoP proof here binds the authorization code to the client's key.
      const proof = await token_request_proof(
        idp,
        this.headers.get("dpop"),
        `${idp.config.issuer}${PATHS.par}`,
        false,
        false,
        is_fapi(idp, client) ? FAPI_SIGNING_ALGS : undefined,
      );
      const pushed = await push_request(idp, client, body, proof);
      // RFC 9126 §2.2: 201 Created with request_uri and expires_in.
      return this.json(pushed, 201);
    }
  };
