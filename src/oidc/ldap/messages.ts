/**
 * The server's half of the LDAP codec (RFC 4511 §4 and §5.1): where one PDU ends in a stream
 * (`pdu_length`, which refuses an oversized length prefix before any of its body is buffered),
 * requests from BER, responses to BER. The client's half, used by the round-trip and fuzz tests,
 * is client_codec.ts; both share the tags below.
 */
import {
  APPLICATION,
  BerError,
  BerReader,
  boolean,
  CONSTRUCTED,
  CONTEXT,
  header_at,
  integer,
  integer_of,
  LIMITS,
  lenient_string,
  octets,
  reader_of,
  sequence,
  string_of,
  TAG,
} from "./ber.ts";
import { read_filter } from "./filter.ts";
import type { BindAuth, Control, LdapResult, Request, RequestMessage, ResponseMessage, WriteKind } from "./protocol.ts";

/** The protocolOp tags (RFC 4511 Appendix B: [APPLICATION n]). */
export const OP = {
  bind_request: APPLICATION | CONSTRUCTED | 0,
  bind_response: APPLICATION | CONSTRUCTED | 1,
  unbind_request: APPLICATION | 2,
  search_request: APPLICATION | CONSTRUCTED | 3,
  search_entry: APPLICATION | CONSTRUCTED | 4,
  search_done: APPLICATION | CONSTRUCTED | 5,
  search_reference: APPLICATION | CONSTRUCTED | 19,
  modify_request: APPLICATION | CONSTRUCTED | 6,
  modify_response: APPLICATION | CONSTRUCTED | 7,
  add_request: APPLICATION | CONSTRUCTED | 8,
  add_response: APPLICATION | CONSTRUCTED | 9,
  delete_request: APPLICATION | 10,
  delete_response: APPLICATION | CONSTRUCTED | 11,
  modify_dn_request: APPLICATION | CONSTRUCTED | 12,
  modify_dn_response: APPLICATION | CONSTRUCTED | 13,
  compare_request: APPLICATION | CONSTRUCTED | 14,
  compare_response: APPLICATION | CONSTRUCTED | 15,
  abandon_request: APPLICATION | 16,
  extended_request: APPLICATION | CONSTRUCTED | 23,
  extended_response: APPLICATION | CONSTRUCTED | 24,
} as const;

/** The write requests by tag, and each one's response tag. */
export const WRITES: Record<WriteKind, { request: number; response: number }> = {
  modify: { request: OP.modify_request, response: OP.modify_response },
  add: { request: OP.add_request, response: OP.add_response },
  delete: { request: OP.delete_request, response: OP.delete_response },
  modify_dn: { request: OP.modify_dn_request, response: OP.modify_dn_response },
};

export const CONTROLS_TAG = CONTEXT | CONSTRUCTED | 0;
/** RFC 4511 §4.1.1: 2^31 - 1. */
export const MAX_INT = 2 ** 31 - 1;

/**
 * How many bytes the first PDU in `buffer` takes, or null while its header is incomplete.
 * Raises BerError for anything that is not an LDAPMessage SEQUENCE or that announces more than
 * LIMITS.max_pdu_bytes: the caller then ends the session without reading further.
 */
export function pdu_length(buffer: Uint8Array): number | null {
  const header = header_at(buffer, 0);
  if (header === null) return null;
  if (header.tag !== TAG.sequence) throw new BerError(`a PDU starts with a SEQUENCE, not 0x${header.tag.toString(16)}`);
  const total = header.start + header.length;
  if (total > LIMITS.max_pdu_bytes) throw new BerError(`PDU of ${header.length} bytes is over the limit of ${LIMITS.max_pdu_bytes}`);
  return total;
}

/** Decodes one whole PDU (what pdu_length measured) into a request; BerError when it is not one. */
export function decode_request(pdu: Uint8Array): RequestMessage {
  const top = reader_of(pdu, 0, "PDU");
  const message = top.constructed(TAG.sequence, "LDAPMessage");
  top.end("PDU");
  const id = message.integer("messageID");
  // §4.1.1.1: 0 is reserved for the server's unsolicited notifications.
  if (id < 1 || id > MAX_INT) throw new BerError(`messageID ${id} out of range`);
  const request = read_request(message);
  const controls = message.done ? [] : read_controls(message.constructed(CONTROLS_TAG, "controls"));
  message.end("LDAPMessage");
  return { id, request, controls };
}

function read_request(message: BerReader): Request {
  const tag = message.peek();
  if (tag === OP.unbind_request) {
    if (message.element().content.length !== 0) throw new BerError("unbind request: NULL has no contents");
    return { op: "unbind" };
  }
  if (tag === OP.abandon_request) {
    const id = integer_of(message.element().content, "abandon messageID");
    if (id < 0 || id > MAX_INT) throw new BerError("abandon messageID out of range");
    return { op: "abandon", id };
  }
  for (const [kind, tags] of Object.entries(WRITES) as [WriteKind, { request: number }][]) {
    if (tag === tags.request) return { op: "write", kind, content: message.element().content };
  }
  switch (tag) {
    case OP.bind_request:
      return read_bind(message.constructed(tag, "bind request"));
    case OP.search_request:
      return read_search(message.constructed(tag, "search request"));
    case OP.compare_request: {
      const compare = message.constructed(tag, "compare request");
      const entry = compare.string("entry");
      const ava = compare.constructed(TAG.sequence, "compare assertion");
      const attribute = ava.string("attribute description");
      const value = lenient_string(ava.bytes_of("assertion value"));
      ava.end("compare assertion");
      compare.end("compare request");
      return { op: "compare", entry, attribute, value };
    }
    case OP.extended_request: {
      const extended = message.constructed(tag, "extended request");
      const oid = extended.string("requestName", CONTEXT | 0);
      const value = extended.done ? null : extended.bytes_of("requestValue", CONTEXT | 1);
      extended.end("extended request");
      return { op: "extended", oid, value };
    }
    default:
      throw new BerError(`unknown protocolOp ${tag === undefined ? "(none)" : `0x${tag.toString(16)}`}`);
  }
}

function read_bind(bind: BerReader): Request {
  const version = bind.integer("version");
  const name = bind.string("bind name");
  let auth: BindAuth;
  const tag = bind.peek();
  if (tag === (CONTEXT | 0)) {
    auth = { kind: "simple", password: lenient_string(bind.bytes_of("simple", CONTEXT | 0)) };
  } else if (tag === (CONTEXT | CONSTRUCTED | 3)) {
    const sasl = bind.constructed(CONTEXT | CONSTRUCTED | 3, "sasl credentials");
    const mechanism = sasl.string("mechanism");
    const credentials = sasl.done ? null : sasl.bytes_of("credentials");
    sasl.end("sasl credentials");
    auth = { kind: "sasl", mechanism, credentials };
  } else {
    throw new BerError("bind request: unknown authentication choice");
  }
  bind.end("bind request");
  return { op: "bind", version, name, auth };
}

function read_search(search: BerReader): Request {
  const base = search.string("baseObject");
  const scope = search.integer("scope", TAG.enumerated);
  // An unknown scope (3, subordinateSubtree, draft-sermersheim-ldap-subordinate-scope, among them)
  // is a well-formed request: the session answers it protocolError (RFC 4511 §4.5.1.2), the
  // connection goes on.
  const deref = search.integer("derefAliases", TAG.enumerated);
  if (deref < 0 || deref > 3) throw new BerError(`unknown derefAliases ${deref}`);
  const size_limit = search.integer("sizeLimit");
  const time_limit = search.integer("timeLimit");
  if (size_limit < 0 || time_limit < 0) throw new BerError("negative limit");
  const types_only = search.boolean("typesOnly");
  const filter = read_filter(search);
  const list = search.constructed(TAG.sequence, "attributes");
  const attributes: string[] = [];
  while (!list.done) {
    if (attributes.length >= LIMITS.max_list_items) throw new BerError("too many attributes asked for");
    attributes.push(list.string("attribute selector"));
  }
  search.end("search request");
  return { op: "search", base, scope, deref, size_limit, time_limit, types_only, filter, attributes };
}

export function read_controls(list: BerReader): Control[] {
  const controls: Control[] = [];
  while (!list.done) {
    if (controls.length >= LIMITS.max_list_items) throw new BerError("too many controls");
    const control = list.constructed(TAG.sequence, "control");
    const oid = control.string("controlType");
    const critical = control.peek() === TAG.boolean ? control.boolean("criticality") : false;
    const value = control.done ? null : control.bytes_of("controlValue");
    control.end("control");
    controls.push({ oid, critical, value });
  }
  return controls;
}

/** The BER form of a control list, or nothing when it is empty. */
export function write_controls(controls: readonly Control[]): Uint8Array[] {
  if (controls.length === 0) return [];
  const list = controls.map((c) => sequence(TAG.sequence, [octets(c.oid), ...(c.critical ? [boolean(true)] : []), ...(c.value === null ? [] : [octets(c.value)])]));
  return [sequence(CONTROLS_TAG, list)];
}

export function result_parts(result: LdapResult): Uint8Array[] {
  return [integer(result.code, TAG.enumerated), octets(result.matched_dn), octets(result.message)];
}

/** Encodes a response message, ready to write to the socket. */
export function encode_response(message: ResponseMessage): Uint8Array {
  const r = message.response;
  let op: Uint8Array;
  switch (r.op) {
    case "bind":
      op = sequence(OP.bind_response, result_parts(r.result));
      break;
    case "search_entry":
      op = sequence(OP.search_entry, [
        octets(r.dn),
        sequence(
          TAG.sequence,
          r.attributes.map((a) =>
            sequence(TAG.sequence, [
              octets(a.type),
              sequence(
                TAG.set,
                a.values.map((v) => octets(v)),
              ),
            ]),
          ),
        ),
      ]);
      break;
    case "search_reference":
      op = sequence(
        OP.search_reference,
        r.uris.map((uri) => octets(uri)),
      );
      break;
    case "search_done":
      op = sequence(OP.search_done, result_parts(r.result));
      break;
    case "compare":
      op = sequence(OP.compare_response, result_parts(r.result));
      break;
    case "extended":
      op = sequence(OP.extended_response, [
        ...result_parts(r.result),
        ...(r.name === null ? [] : [octets(r.name, CONTEXT | 10)]),
        ...(r.value === null ? [] : [octets(r.value, CONTEXT | 11)]),
      ]);
      break;
    case "write":
      op = sequence(WRITES[r.kind].response, result_parts(r.result));
      break;
  }
  return sequence(TAG.sequence, [integer(message.id), op, ...write_controls(message.controls)]);
}

/** The paged results control's value (RFC 2696 §2): the page size and the cookie. */
export function decode_paged_value(value: Uint8Array | null): { size: number; cookie: Uint8Array } {
  if (value === null) throw new BerError("paged results control without a value");
  const top = reader_of(value, 0, "paged results");
  const seq = top.constructed(TAG.sequence, "paged results value");
  top.end("paged results");
  const size = seq.integer("size");
  if (size < 0) throw new BerError("negative page size");
  const cookie = seq.bytes_of("cookie");
  seq.end("paged results value");
  return { size, cookie };
}

export function encode_paged_value(size: number, cookie: Uint8Array): Uint8Array {
  return sequence(TAG.sequence, [integer(size), octets(cookie)]);
}

/** The DN of a write request, for the audit and the answer's words; null when the contents are not a DN first. */
export function write_target(kind: WriteKind, content: Uint8Array): string | null {
  try {
    if (kind === "delete") return string_of(content, "entry");
    return new BerReader(content, 2).string("entry");
  } catch {
    return null;
  }
}
