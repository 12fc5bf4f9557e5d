/**
 * GET|POST /interaction/:id/consent: the consent page (OIDC Core §3.1.2.4). Shows who is asking
 * for what, in plain words; "Allow" remembers the grant (no second prompt for the same scopes)
 * and sends a code back, "Deny" sends access_denied (RFC 6749 §4.1.2.1). For a device
 * authorization (RFC 8628 §3.3, device.ts) it shows the user code to compare and records the
 * decision for the device's next poll.
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { account_url } from "../../../oidc/browser/account_guard.ts";
import { record_event } from "../../../oidc/audit.ts";
import { client_response, error_response, issue_code, record_grant, type ClientResponse } from "../../../oidc/authorize/decision.ts";
import { claims_beyond_scopes, describe_claims } from "../../../oidc/claims/request.ts";
import { display_name, safe_link } from "../../../oidc/clients/metadata.ts";
import { PageError } from "../../../oidc/errors.ts";
import { approve_device, deny_device } from "../../../oidc/authorize/device.ts";
import { invalid_form } from "../../errors.ts";
import { respond } from "../../authorization_response.ts";
import { check_csrf, end_interaction, load_interaction, type Authentication, type Interaction, interaction_url } from "../../../oidc/authorize/interactions.ts";
import { layout_values, redirect_host } from "../../pages/layout.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { client_ip } from "../../middleware/proxy.ts";
import { SCOPE_DESCRIPTIONS, is_known_scope } from "../../../oidc/claims/scopes.ts";
import { load_attribute_catalog } from "../../../oidc/attributes/claims.ts";
import { set_page_headers } from "../../middleware/security_headers.ts";
import type { ClientRow, UserRow } from "../../../store/types.ts";

export const ConsentRequest = Fw.Request(
  "ConsentRequest",
  z.object({ id: z.string().max(128), decision: z.enum(["allow", "deny"]).optional(), csrf: z.string().max(256).optional() }),
  { on_invalid: invalid_form },
);

export const Consent = (idp: Provider) =>
  class Consent extends Fw.Renderable(Fw.Endpoint(ConsentRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = "GET|POST /interaction/:id/consent";

    async call() {
      const input = this.consent_request;
      const interaction = await load_interaction(idp, input.id, this.cookies);
      const status = this.request.method === "POST" ? 303 : 302;
      // The account page's own sign-in asks no consent: its sign-in page is /account/login.
      if (interaction === null) return this.redirect_to(account_url(idp, "login"), status);
      const authentication = interaction.authentication;
      if (authentication === null) return this.redirect_to(interaction_url(idp, interaction.id, "login"), status);
      const [client, user] = await Promise.all([idp.store.get_client(interaction.request.client_id), idp.store.get_user_by_id(authentication.user_id)]);
      if (client === null) throw new PageError("Unknown application", "The application that sent you here is no longer registered.", "invalid_client");
      if (user === null) return this.redirect_to(interaction_url(idp, interaction.id, "login"), status);
      if (this.request.method === "GET") return interaction.request.device === null ? this.page(interaction, client, user) : this.device_page(interaction, client, user);

      check_csrf(interaction, input.csrf);
      if (input.decision === undefined) throw new PageError("No choice was made", "Choose Allow or Deny to continue.");
      await end_interaction(idp, interaction.id);
      if (interaction.request.device !== null) return this.device_decision(interaction, authentication, input.decision);
      if (input.decision === "deny") {
        return respond(this, idp, error_response(idp, interaction.request, "access_denied", "the user denied the request"), 303);
      }
      return respond(this, idp, await this.allow(interaction, authentication, client), 303);
    }

    async allow(interaction: Interaction, authentication: Authentication, client: ClientRow): Promise<ClientResponse> {
      const request = interaction.request;
      await record_grant(idp, request, authentication.user_id);
      await record_event(idp, {
        type: "consent_granted",
        outcome: "success",
        user_id: authentication.user_id,
        client_id: request.client_id,
        ip: client_ip(this.context, idp.config),
        details: { scopes: request.scopes },
      });
      const code = await issue_code(idp, request, authentication, client);
      return client_response(idp, request, { code });
    }

    /**
     * RFC 8628 §3.3: the device's authorization decided. Nothing goes back to a redirect URI: the
     * device learns the answer from its next poll; the user is told to go back to the device.
     */
    async device_decision(interaction: Interaction, authentication: Authentication, decision: "allow" | "deny") {
      const ip = client_ip(this.context, idp.config);
      const request = interaction.request;
      if (decision === "deny") {
        await deny_device(idp, request, authentication.user_id, ip);
        return this.view("message", {
          ...layout_values(idp, "Device not connected"),
          heading: "Device not connected",
          message: "You denied the request. The device will not get access to your account.",
        });
      }
      if (!(await approve_device(idp, request, authentication, ip))) throw expired_device();
      // Listed with the applications the user allowed (account page), where its tokens can be revoked.
      await record_grant(idp, request, authentication.user_id);
      return this.view("message", {
        ...layout_values(idp, "Device connected"),
        heading: "Device connected",
        notice: `${request.device?.user_code ?? ""}: approved.`,
        message: "You can go back to your device: it will continue in a few seconds.",
      });
    }

    /** RFC 8628 §3.3, §5.4: who asks, for what, and the code to compare with the device's screen. */
    device_page(interaction: Interaction, client: ClientRow, user: UserRow) {
      const logo = safe_link(client.metadata, "logo_uri");
      set_page_headers(this.response.headers, null, false, logo);
      return this.view("device_consent", {
        ...layout_values(idp, `Connect ${display_name(client)}?`),
        client_name: display_name(client),
        logo,
        user_name: user.name ?? user.username,
        user_code: interaction.request.device?.user_code ?? "",
        scopes: scope_descriptions(interaction.request.scopes),
        action: interaction_url(idp, interaction.id, "consent"),
        csrf: interaction.csrf,
      });
    }

    async page(interaction: Interaction, client: ClientRow, user: UserRow) {
      const logo = safe_link(client.metadata, "logo_uri");
      // The logo's origin alone joins img-src, on this page only (security_headers.ts).
      set_page_headers(this.response.headers, interaction.request.redirect_uri, false, logo);
      const scopes = scope_descriptions(interaction.request.scopes);
      return this.view("consent", {
        ...layout_values(idp, `Allow ${display_name(client)}?`),
        client_name: display_name(client),
        logo,
        client_uri: safe_link(client.metadata, "client_uri"),
        policy: safe_link(client.metadata, "policy_uri"),
        tos: safe_link(client.metadata, "tos_uri"),
        user_name: user.name ?? user.username,
        scopes,
        // OIDC Core §5.5: details asked for one by one, beyond what the scopes above release.
        claims: describe_claims(
          interaction.request.claims,
          claims_beyond_scopes(interaction.request.claims, interaction.request.scopes, (await load_attribute_catalog(idp.store)).claim_scopes),
        ),
        redirect_host: redirect_host(interaction.request.redirect_uri),
        action: interaction_url(idp, interaction.id, "consent"),
        csrf: interaction.csrf,
      });
    }
  };

function scope_descriptions(scopes: readonly string[]): string[] {
  return scopes.map((scope) => (is_known_scope(scope) ? SCOPE_DESCRIPTIONS[scope] : `Use the permission “${scope}”`));
}

function expired_device(): PageError {
  return new PageError("This code has expired", "The device's request expired or was already answered. Start again on the device to get a new code.", "invalid_request");
}
