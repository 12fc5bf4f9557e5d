/**
 * GET /federation/:name/start[?interaction=ID]: sends the browser to the upstream identity
 * provider NAME (the sign-in page's button, or `login_hint=idp:NAME`). With an interaction, the
 * sign-in resumes it; without, it signs in to the account page.
 * GET /federation/:name/start?link=CSRF (the account page's link, with the session's form token):
 * links the upstream account to the signed-in user. A link, not a form: CSP form-action would
 * stop a form's redirect to the upstream.
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { account_session, check_account_csrf } from "../../../oidc/account/session.ts";
import { cookie_options, interaction_cookie_name, read_cookie } from "../../../oidc/cookies.ts";
import { random_token } from "../../../oidc/crypto/secrets.ts";
import { PageError } from "../../../oidc/errors.ts";
import { begin_upstream, enabled_upstream } from "../../../oidc/federation/flow.ts";
import { load_interaction } from "../../../oidc/interactions.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { invalid_form } from "../../errors.ts";
import { client_ip } from "../../middleware/proxy.ts";

export const FederationStartRequest = Fw.Request(
  "FederationStartRequest",
  z.object({ name: z.string().max(64), interaction: z.string().max(128).optional(), link: z.string().max(256).optional() }),
  { on_invalid: invalid_form },
);

export const FederationStart = (idp: Provider) =>
  class FederationStart extends Fw.Renderable(Fw.Endpoint(FederationStartRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = "GET /federation/:name/start";

    async call() {
      const input = this.federation_start_request;
      const upstream = await enabled_upstream(idp, input.name);
      const ip = client_ip(this.context, idp.config);
      let link_user_id: string | null = null;
      let interaction_id: string | null = null;
      if (input.link !== undefined) {
        const session = await account_session(idp, this.cookies);
        if (session === null) throw new PageError("Signed out", "Sign in to your account to link another way of signing in.", "access_denied");
        check_account_csrf(session, input.link);
        link_user_id = session.user.id;
      } else if (input.interaction !== undefined) {
        // Only the browser that started the interaction may continue it (throws otherwise).
        const interaction = await load_interaction(idp, input.interaction, this.cookies);
        interaction_id = interaction?.id ?? null;
      }
      // The state is bound to this browser by its interaction cookie: keep it, or give it one.
      const binding = read_cookie(this.cookies, interaction_cookie_name(idp)) ?? random_token(32);
      this.set_cookie(interaction_cookie_name(idp), binding, cookie_options(idp, Math.max(idp.config.tokens.interaction_ttl, idp.config.federation.state_ttl_seconds)));
      const url = await begin_upstream(idp, upstream, { interaction_id, binding, link_user_id, ip });
      return this.redirect_to(url, 302);
    }
  };
