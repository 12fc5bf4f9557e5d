/**
 * GET /federation/:name/start[?interaction=ID]: sends the browser to the upstream identity
 * provider NAME (the sign-in page's button, or `login_hint=idp:NAME`). With an interaction, the
 * sign-in resumes it; without, it signs in to the account page.
 * Linking an upstream account to a signed-in user is not started here but by the account page's
 * form after re-authentication (account/identity_link.ts); the former `?link=CSRF` (a session's
 * form token in a URL that history keeps, and no password asked) is refused.
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { cookie_options, interaction_cookie_name, read_cookie } from "../../../oidc/browser/cookies.ts";
import { random_token } from "../../../oidc/crypto/secrets.ts";
import { PageError } from "../../../oidc/errors.ts";
import { begin_upstream, count_upstream_start, enabled_upstream } from "../../../oidc/federation/flow.ts";
import { load_interaction } from "../../../oidc/authorize/interactions.ts";
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
      const ip = client_ip(this.context, idp.config);
      // Rate-limited per address before anything is read or stored (rate_limits.federation_start_per_ip).
      await count_upstream_start(idp, ip);
      const upstream = await enabled_upstream(idp, input.name);
      let interaction_id: string | null = null;
      if (input.link !== undefined) {
        throw new PageError(
          "Link from your account page",
          `To link ${upstream.display_name}, open your account page, confirm with your password and choose "Link ${upstream.display_name}".`,
          "invalid_request",
        );
      } else if (input.interaction !== undefined) {
        // Only the browser that started the interaction may continue it (throws otherwise).
        const interaction = await load_interaction(idp, input.interaction, this.cookies);
        interaction_id = interaction?.id ?? null;
      }
      // The state is bound to this browser by its interaction cookie: keep it, or give it one.
      const binding = read_cookie(this.cookies, interaction_cookie_name(idp)) ?? random_token(32);
      this.set_cookie(interaction_cookie_name(idp), binding, cookie_options(idp, Math.max(idp.config.tokens.interaction_ttl, idp.config.federation.state_ttl_seconds)));
      const url = await begin_upstream(idp, upstream, { interaction_id, binding, link_user_id: null, ip });
      return this.redirect_to(url, 302);
    }
  };
