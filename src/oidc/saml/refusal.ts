/**
 * Why a SAML message was refused, before a response can be trusted to reach the service
 * provider (its ACS is not yet verified): `reason` is a short code for the audit log
 * (saml_login, `details.reason`), `message` the words the person in the browser sees. sso.ts
 * turns it into a PageError and an audit event.
 */
export type RefusalReason =
  | "malformed"
  | "unknown_sp"
  | "unsigned"
  | "bad_signature"
  | "wrapped"
  | "replayed"
  | "expired"
  | "destination"
  | "acs"
  | "binding"
  | "relay_state"
  | "no_slo";

export class SamlRefusal extends Error {
  override name = "SamlRefusal";
  constructor(
    readonly reason: RefusalReason,
    message: string,
  ) {
    super(message);
  }
}
