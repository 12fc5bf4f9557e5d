/**
 * Identity provider initiated Single Logout (SAML Profiles §4.4.3.1) through the browser: the
 * iframes of the signed-out page that carry each session participant its signed LogoutRequest
 * (slo.ts says when; logout/end_session.ts adds them to the OpenID front-channel iframes).
 */
import { csp_source } from "../clients/metadata.ts";
import type { FrontChannelFrame } from "../logout/frontchannel.ts";
import type { Provider } from "../provider.ts";
import type { SamlParticipantRow } from "../../store/types.ts";
import { logout_request_xml, outgoing } from "./logout_messages.ts";
import { logout_service, stored_sp_metadata } from "./sp_metadata.ts";

/** The iframes that tell each participant of an ended session (those with a single logout service). */
export async function saml_logout_frames(idp: Provider, participants: readonly SamlParticipantRow[]): Promise<FrontChannelFrame[]> {
  const frames: FrontChannelFrame[] = [];
  for (const participant of participants) {
    const sp = await idp.store.get_saml_service_provider(participant.entity_id);
    if (sp === null) continue;
    const slo = logout_service(stored_sp_metadata(sp.metadata_xml));
    if (slo === null) continue;
    const message = outgoing(idp, logout_request_xml(idp, participant, slo.location), slo, "SAMLRequest", slo.location, null);
    const target = message.binding === "redirect" ? message.url : message.action;
    const origin = csp_source(target);
    if (origin === null) continue;
    frames.push({
      client_id: sp.entity_id,
      client_name: sp.name,
      url: target,
      origin,
      saml: true,
      ...(message.binding === "post" ? { post: message.fields } : {}),
    });
  }
  return frames;
}
