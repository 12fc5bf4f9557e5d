/**
 * GET|POST /authorize: the authorization endpoint (OIDC Core §3.1.2). Validates the request,
 * then either answers at once (signed in, consent given, or prompt=none) or starts an
 * interaction and sends the browser to the login or consent page. Answers to the client go by
 * redirect or, with response_mode=form_post, as an auto-submitting form (http/authorization_response.ts); with a
 * JARM mode (jwt, query.jwt, fragment.jwt, form_post.jwt) as one signed `response` JWT.
 * Every request is first counted per address (interactions.ts `count_interaction_start`).
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { error_response, next_step } from "../../../oidc/authorize/decision.ts";
import { resolve_target, validate_request } from "../../../oidc/authorize/request.ts";
import { AuthorizationError, PageError } from "../../../oidc/errors.ts";
import { describe_issues, to_http } from "../../errors.ts";
import { respond } from "../../authorization_response.ts";
import { begin_interaction, count_interaction_start, type Authentication, type AuthorizationRequest } from "../../../oidc/authorize/interactions.ts";
import { PATHS } from "../../../oidc/discovery/paths.ts";
import { interaction_url } from "../../../oidc/authorize/interactions.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { current_session_row } from "../../../oidc/signin/sessions.ts";
import { client_ip } from "../../middleware/proxy.ts";

/**
 * Every parameter as sent: a string, or an array when repeated. Checks happen in call(), in the
 * order that decides whether an error may be redirected (oidc/authorize/request.ts).
 */
export const AuthorizeRequest = Fw.Request("AuthorizeRequest", z.record(z.string(), z.union([z.string(), z.array(z.string())])), {
  on_invalid: (issues) => to_http(new PageError("The application sent an invalid request", `The sign-in request is malformed (${describe_issues(issues)}).`)),
});

export const Authorize = (idp: Provider) =>
  class Authorize extends Fw.Renderable(Fw.Endpoint(AuthorizeRequest, [Fw.Response.Redirect, Fw.Response.Html])) {
    static route = `GET|POST ${PATHS.authorize}`;

    async call() {
      // OIDC Core §3.1.2.1: GET and POST (form-serialized) are both supported. After a POST the
      // browser must GET the next page: 303, never 307 (which would re-POST the form).
      const status = this.request.method === "POST" ? 303 : 302;
      // Counted per address before anything is read or stored (rate_limits.authorize_per_ip):
      // past the limit, the 429 page with Retry-After, and no interaction.
      await count_interaction_start(idp, client_ip(this.context, idp.config));
      const { target, params, error } = await resolve_target(idp, this.authorize_request);
      let request: AuthorizationRequest;
      try {
        if (error !== null) throw error;
        request = await validate_request(idp, target, params);
      } catch (thrown) {
        if (!(thrown instanceof AuthorizationError)) throw thrown;
        return respond(this, idp, error_response(idp, target, thrown.error, thrown.description), status);
      }
      const session = await current_session_row(idp, this.cookies);
      const authentication: Authentication | null =
        session === null ? null : { user_id: session.user_id, session_id_hash: session.id_hash, auth_time: session.auth_time, amr: session.amr };
      const step = await next_step(idp, target.client, request, authentication, { login: false, consent: false });
      if (step.kind === "redirect") return respond(this, idp, step.response, status);
      // When the user must (re)authenticate (no session, prompt=login, max_age), the session is
      // not carried into the interaction: the consent page is then unreachable until the login
      // page has recorded a fresh authentication.
      const { id, cookie } = await begin_interaction(idp, request, step.kind === "login" ? null : authentication, this.cookies);
      this.set_cookie(cookie.name, cookie.value, cookie.options);
      return this.redirect_to(interaction_url(idp, id, step.kind), status);
    }
  };
