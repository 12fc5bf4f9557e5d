/**
 * Errors of the client registration endpoints (RFC 7591 §3.2.2): 400 with
 * `{error, error_description}`. Access failures use BearerError (RFC 6750 §3, 401 invalid_token)
 * from ../errors.ts.
 */
import { HttpError } from "../../fw/index.ts";

/** RFC 7591 §3.2.2 error codes (software statements are not supported, so not their codes). */
export type RegistrationErrorCode = "invalid_redirect_uri" | "invalid_client_metadata";

export class RegistrationError extends HttpError {
  constructor(readonly error: RegistrationErrorCode, description: string) {
    super(description, { status: 400, code: error });
  }

  override body(): Record<string, unknown> {
    return { error: this.error, error_description: this.message };
  }
}

/** invalid_client_metadata: a metadata value is invalid or not supported (RFC 7591 §3.2.2). */
export function invalid_metadata(description: string): RegistrationError {
  return new RegistrationError("invalid_client_metadata", description);
}

/** invalid_redirect_uri: a redirect_uris value is invalid (RFC 7591 §3.2.2). */
export function invalid_redirect_uri(description: string): RegistrationError {
  return new RegistrationError("invalid_redirect_uri", description);
}
