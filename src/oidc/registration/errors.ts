/**
 * Errors of dynamic client registration (RFC 7591 §3.2.2): `invalid_redirect_uri` and
 * `invalid_client_metadata`, in the OAuth error shape with status 400 (src/http/errors.ts).
 */
import { ProtocolError } from "../errors.ts";

export type RegistrationErrorCode = "invalid_redirect_uri" | "invalid_client_metadata";

export class RegistrationError extends ProtocolError {
  constructor(
    readonly error: RegistrationErrorCode,
    description: string,
  ) {
    super(description);
    this.name = "RegistrationError";
  }
}

export function invalid_metadata(description: string): RegistrationError {
  return new RegistrationError("invalid_client_metadata", description);
}

export function invalid_redirect_uri(description: string): RegistrationError {
  return new RegistrationError("invalid_redirect_uri", description);
}
