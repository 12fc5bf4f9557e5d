/**
 * The LDAP messages this server reads and writes (RFC 4511 §4), as plain values, with the
 * protocol's numbers: result codes (§4.1.9 and Appendix A), the operations' application tags
 * (§4.2–§4.14), and the OIDs of the extensions and controls we implement. The BER forms are
 * messages.ts (the server's half) and client_codec.ts (the client's half).
 */
import type { Filter } from "./filter.ts";

/** RFC 4511 Appendix A (the codes this server answers with). */
export const RESULT = {
  success: 0,
  operations_error: 1,
  protocol_error: 2,
  time_limit_exceeded: 3,
  size_limit_exceeded: 4,
  compare_false: 5,
  compare_true: 6,
  auth_method_not_supported: 7,
  unavailable_critical_extension: 12,
  confidentiality_required: 13,
  no_such_attribute: 16,
  undefined_attribute_type: 17,
  no_such_object: 32,
  invalid_dn_syntax: 34,
  inappropriate_authentication: 48,
  invalid_credentials: 49,
  insufficient_access_rights: 50,
  unavailable: 52,
  unwilling_to_perform: 53,
  other: 80,
} as const;

export const OID = {
  /** RFC 4511 §4.14.1. */
  start_tls: "1.3.6.1.4.1.1466.20037",
  /** RFC 4532 §2. */
  who_am_i: "1.3.6.1.4.1.4203.1.11.3",
  /** RFC 4511 §4.4.1: sent with message ID 0 before the server ends a session. */
  notice_of_disconnection: "1.3.6.1.4.1.1466.20036",
  /** RFC 2696. */
  paged_results: "1.2.840.113556.1.4.319",
  /** RFC 3296 §3: ManageDsaIT; honoured trivially, there are no referral objects here. */
  manage_dsa_it: "2.16.840.1.113730.3.4.2",
} as const;

/** RFC 4511 §4.5.1.2. */
export const SCOPE = { base: 0, one: 1, sub: 2 } as const;
export type Scope = (typeof SCOPE)[keyof typeof SCOPE];

export type Control = { oid: string; critical: boolean; value: Uint8Array | null };

/** The operations that change the directory (§4.6–§4.9): read for their tag only, answered unwillingToPerform. */
export type WriteKind = "modify" | "add" | "delete" | "modify_dn";

export type BindAuth = { kind: "simple"; password: string } | { kind: "sasl"; mechanism: string; credentials: Uint8Array | null };

export type Request =
  | { op: "bind"; version: number; name: string; auth: BindAuth }
  | { op: "unbind" }
  | {
      op: "search";
      base: string;
      /** A Scope, or another value the request named (answered protocolError by the session, never run). */
      scope: number;
      deref: number;
      size_limit: number;
      time_limit: number;
      types_only: boolean;
      filter: Filter;
      attributes: string[];
    }
  | { op: "compare"; entry: string; attribute: string; value: string }
  | { op: "abandon"; id: number }
  | { op: "extended"; oid: string; value: Uint8Array | null }
  /** `content`: the request's contents as received (never interpreted). */
  | { op: "write"; kind: WriteKind; content: Uint8Array };

export type RequestMessage = { id: number; request: Request; controls: Control[] };

export type LdapResult = { code: number; matched_dn: string; message: string };

export type Attribute = { type: string; values: string[] };

export type Response =
  | { op: "bind"; result: LdapResult }
  | { op: "search_entry"; dn: string; attributes: Attribute[] }
  | { op: "search_reference"; uris: string[] }
  | { op: "search_done"; result: LdapResult }
  | { op: "compare"; result: LdapResult }
  | { op: "extended"; result: LdapResult; name: string | null; value: Uint8Array | null }
  | { op: "write"; kind: WriteKind; result: LdapResult };

export type ResponseMessage = { id: number; response: Response; controls: Control[] };

/** A result with no matched DN. */
export function result(code: number, message = ""): LdapResult {
  return { code, matched_dn: "", message };
}

/** The unsolicited notice that ends a session (RFC 4511 §4.4.1). */
export function notice_of_disconnection(code: number, message: string): ResponseMessage {
  return { id: 0, response: { op: "extended", result: result(code, message), name: OID.notice_of_disconnection, value: null }, controls: [] };
}
