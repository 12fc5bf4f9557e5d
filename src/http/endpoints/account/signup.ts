/**
 * GET|POST /signup: the sign-up page (IDP_SIGNUP=open; not mounted otherwise). Within an
 * authorization request (`?interaction=ID`, from that sign-in page) the new person goes back to
 * it: at once when no verification is required, else through the sign-in page once the address
 * is confirmed. The checks, the throttle and what is revealed are in oidc/accounts/signup.ts.
 *
 * CSRF: the page form token of "signup" (oidc/browser/page_forms.ts), bound to this browser.
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { password_hint } from "../../../oidc/accounts/chosen_password.ts";
import { after_password, begin_for_account, second_factor_required } from "../../../oidc/signin/second_factor.ts";
import { sign_in } from "../../../oidc/signin/complete.ts";
import { AMR_PASSWORD } from "../../../oidc/signin/methods.ts";
import { account_url } from "../../../oidc/browser/account_guard.ts";
import { SIGNUP_PATH, domains_in_words, sign_up, type SignupField } from "../../../oidc/accounts/signup.ts";
import { display_name } from "../../../oidc/clients/metadata.ts";
import { check_page_form, page_form_token } from "../../../oidc/browser/page_forms.ts";
import { PageError } from "../../../oidc/errors.ts";
import { interaction_url, load_interaction, type Interaction } from "../../../oidc/authorize/interactions.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { continue_after_sign_in } from "../../authorization_response.ts";
import { invalid_form } from "../../errors.ts";
import { client_ip } from "../../middleware/proxy.ts";
import { set_page_headers } from "../../middleware/security_headers.ts";
import { layout_values } from "../../pages/layout.ts";

export const SignupRequest = Fw.Request(
  "SignupRequest",
  z.object({
    interaction: z.string().max(128).optional(),
    csrf: z.string().max(256).optional(),
    username: z.string().max(256).optional(),
    email: z.string().max(1024).optional(),
    name: z.string().max(1024).optional(),
    password: z.string().max(4096).optional(),
    confirm_password: z.string().max(4096).optional(),
  }),
  { on_invalid: invalid_form },
);

type Values = { username: string; email: string; name: string };

export const Signup = (idp: Provider) =>
  class Signup extends Fw.Renderable(Fw.Endpoint(SignupRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `GET|POST ${SIGNUP_PATH}`;

    async call() {
      const input = this.signup_request;
      // Checked before anything else: a sign-up started in another browser cannot continue here.
      const interaction = input.interaction ? await load_interaction(idp, input.interaction, this.cookies) : null;
      const values: Values = { username: (input.username ?? "").trim(), email: (input.email ?? "").trim(), name: input.name ?? "" };
      if (this.request.method === "GET") return this.page(interaction, values, null);

      check_page_form(idp, this.cookies, input.csrf, "signup", "The sign-up form was not sent from this page. Open the sign-up page again and try again.");
      const ip = client_ip(this.context, idp.config);
      const outcome = await sign_up(
        idp,
        { username: values.username, email: values.email, name: values.name, password: input.password ?? "", confirm_password: input.confirm_password ?? "" },
        ip,
        interaction?.id ?? null,
      );
      if (outcome.kind === "refused") return this.page(interaction, values, { field: outcome.field, message: outcome.message }, 400);
      const sign_in_url = interaction === null ? account_url(idp, "login") : interaction_url(idp, interaction.id, "login");
      if (outcome.kind === "check_mail") {
        return this.view("message", {
          ...layout_values(idp, "Check your mail"),
          heading: "Check your mail",
          notice: `We sent a message to ${outcome.email}.`,
          message: "Open the link in it to confirm your address, then sign in. No message after a few minutes? Look in your spam folder.",
          link: { href: sign_in_url, text: "Sign in" },
        });
      }
      // No verification required: the account is active, so this sign-up is also its first sign-in,
      // with the same second-factor rules as the sign-in pages (a required second factor is set
      // up first, or the request that requires one stops at its page).
      if (interaction !== null) {
        const next = await after_password(idp, interaction, outcome.user);
        if (next !== null) return this.redirect_to(next, 303);
      } else if (await second_factor_required(idp, null, outcome.user)) {
        const { url, cookie } = await begin_for_account(idp, outcome.user, this.cookies, true);
        this.set_cookie(cookie.name, cookie.value, cookie.options);
        return this.redirect_to(url, 303);
      }
      const { session, cookie } = await sign_in(idp, this.cookies, outcome.user, AMR_PASSWORD, ip, interaction?.request.client_id ?? null, this.headers.get("user-agent"));
      this.set_cookie(cookie.name, cookie.value, cookie.options);
      if (interaction === null) return this.redirect_to(account_url(idp), 303);
      const client = await idp.store.get_client(interaction.request.client_id);
      if (client === null) throw new PageError("Unknown application", "The application that sent you here is no longer registered.", "invalid_client");
      return continue_after_sign_in(this, idp, client, interaction, session);
    }

    async page(interaction: Interaction | null, values: Values, error: { field: SignupField; message: string } | null, status = 200) {
      // The form token is bound to this browser: keep its binding value, or give it one.
      const { csrf, cookie } = page_form_token(idp, this.cookies, "signup");
      this.set_cookie(cookie.name, cookie.value, cookie.options);
      let client_name: string | null = null;
      if (interaction !== null) {
        set_page_headers(this.response.headers, interaction.request.redirect_uri);
        const client = await idp.store.get_client(interaction.request.client_id);
        client_name = client === null ? null : display_name(client);
      }
      return this.view(
        "signup",
        {
          ...layout_values(idp, "Create an account"),
          action: `${idp.config.issuer}${SIGNUP_PATH}`,
          csrf,
          interaction: interaction?.id ?? null,
          client_name,
          values,
          error,
          domains: domains_in_words(idp.config.signup.domains),
          password_hint: password_hint(idp),
          sign_in_url: interaction === null ? account_url(idp, "login") : interaction_url(idp, interaction.id, "login"),
        },
        status,
      );
    }
  };
