/**
 * SCIM errors (RFC 7644 §3.12): a status, a `scimType` where the RFC names one, and words. No
 * HTTP here: http/middleware/scim.ts renders the error document once. The admin rules' errors
 * (admin/errors.ts) become SCIM errors through `scim_error_of`.
 */
import { AdminError } from "../admin/errors.ts";
import { ProtocolError } from "../errors.ts";

/** RFC 7644 §3.12 Table 9. */
export type ScimType = "invalidFilter" | "tooMany" | "uniqueness" | "mutability" | "invalidSyntax" | "invalidPath" | "noTarget" | "invalidValue" | "invalidVers" | "sensitive";

export class ScimError extends ProtocolError {
  get error(): string {
    return this.scim_type ?? `scim_${this.status}`;
  }
  constructor(
    readonly status: number,
    readonly scim_type: ScimType | null,
    message: string,
  ) {
    super(message);
    this.name = "ScimError";
  }
}

export const invalid_filter = (message: string) => new ScimError(400, "invalidFilter", message);
export const invalid_value = (message: string) => new ScimError(400, "invalidValue", message);
export const invalid_path = (message: string) => new ScimError(400, "invalidPath", message);
export const invalid_syntax = (message: string) => new ScimError(400, "invalidSyntax", message);
export const no_target = (message: string) => new ScimError(400, "noTarget", message);
export const mutability = (message: string) => new ScimError(400, "mutability", message);
export const scim_not_found = (what: string, id: string) => new ScimError(404, null, `${what} ${JSON.stringify(id)} not found`);

/** The SCIM error of an admin rule's refusal (the same rules as the admin API, in SCIM's words). */
export function scim_error_of(error: unknown): ScimError | null {
  if (error instanceof ScimError) return error;
  if (!(error instanceof AdminError)) return null;
  switch (error.error) {
    case "invalid_request":
      return new ScimError(400, "invalidValue", error.message);
    case "not_found":
      return new ScimError(404, null, error.message);
    case "conflict":
      // A taken name names its field; other conflicts (the last administrator, an invited account) are states.
      return new ScimError(409, error.errors.length > 0 ? "uniqueness" : null, error.message);
    case "forbidden":
      return new ScimError(403, null, error.message);
    case "precondition_failed":
    case "precondition_required":
      return new ScimError(412, null, error.message);
  }
}
