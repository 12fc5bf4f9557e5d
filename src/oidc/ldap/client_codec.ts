/**
 * The client's half of the LDAP codec: requests to BER, responses from BER (RFC 4511 §4). The
 * server never needs it; it makes the codec checkable both ways (every request the server can
 * read, written and read back: tests/oidc/ldap/codec.test.ts) and lets tests speak raw LDAP.
 */
import { BerError, type BerReader, boolean, CONSTRUCTED, CONTEXT, integer, lenient_string, octets, reader_of, sequence, TAG } from "./ber.ts";
import { write_filter } from "./filter.ts";
import { CONTROLS_TAG, OP, read_controls, WRITES, write_controls } from "./messages.ts";
import type { Attribute, LdapResult, Request, RequestMessage, Response, ResponseMessage, WriteKind } from "./protocol.ts";

/** Encodes a request message. */
export function encode_request(message: RequestMessage): Uint8Array {
  return sequence(TAG.sequence, [integer(message.id), request_op(message.request), ...write_controls(message.controls)]);
}

function request_op(r: Request): Uint8Array {
  switch (r.op) {
    case "bind": {
      const auth =
        r.auth.kind === "simple"
          ? octets(r.auth.password, CONTEXT | 0)
          : sequence(CONTEXT | CONSTRUCTED | 3, [octets(r.auth.mechanism), ...(r.auth.credentials === null ? [] : [octets(r.auth.credentials)])]);
      return sequence(OP.bind_request, [integer(r.version), octets(r.name), auth]);
    }
    case "unbind":
      return octets(new Uint8Array(0), OP.unbind_request);
    case "search":
      return sequence(OP.search_request, [
        octets(r.base),
        integer(r.scope, TAG.enumerated),
        integer(r.deref, TAG.enumerated),
        integer(r.size_limit),
        integer(r.time_limit),
        boolean(r.types_only),
        write_filter(r.filter),
        sequence(
          TAG.sequence,
          r.attributes.map((a) => octets(a)),
        ),
      ]);
    case "compare":
      return sequence(OP.compare_request, [octets(r.entry), sequence(TAG.sequence, [octets(r.attribute), octets(r.value)])]);
    case "abandon":
      return integer(r.id, OP.abandon_request);
    case "extended":
      return sequence(OP.extended_request, [octets(r.oid, CONTEXT | 0), ...(r.value === null ? [] : [octets(r.value, CONTEXT | 1)])]);
    case "write":
      return octets(r.content, WRITES[r.kind].request);
  }
}

/** Decodes one response PDU. */
export function decode_response(pdu: Uint8Array): ResponseMessage {
  const top = reader_of(pdu, 0, "PDU");
  const message = top.constructed(TAG.sequence, "LDAPMessage");
  top.end("PDU");
  const id = message.integer("messageID");
  const response = read_response(message);
  const controls = message.done ? [] : read_controls(message.constructed(CONTROLS_TAG, "controls"));
  message.end("LDAPMessage");
  return { id, response, controls };
}

function read_result(reader: BerReader): LdapResult {
  const code = reader.integer("resultCode", TAG.enumerated);
  const matched_dn = reader.string("matchedDN");
  const message = reader.string("diagnosticMessage");
  return { code, matched_dn, message };
}

function read_response(message: BerReader): Response {
  const tag = message.peek();
  for (const [kind, tags] of Object.entries(WRITES) as [WriteKind, { response: number }][]) {
    if (tag === tags.response) {
      const r = message.constructed(tag, "write response");
      const result = read_result(r);
      r.end("write response");
      return { op: "write", kind, result };
    }
  }
  switch (tag) {
    case OP.bind_response:
    case OP.search_done:
    case OP.compare_response: {
      const r = message.constructed(tag, "response");
      const result = read_result(r);
      r.end("response");
      return { op: tag === OP.bind_response ? "bind" : tag === OP.search_done ? "search_done" : "compare", result };
    }
    case OP.extended_response: {
      const r = message.constructed(tag, "extended response");
      const result = read_result(r);
      const name = r.peek() === (CONTEXT | 10) ? r.string("responseName", CONTEXT | 10) : null;
      const value = r.peek() === (CONTEXT | 11) ? r.bytes_of("responseValue", CONTEXT | 11) : null;
      r.end("extended response");
      return { op: "extended", result, name, value };
    }
    case OP.search_entry: {
      const r = message.constructed(tag, "search entry");
      const dn = r.string("objectName");
      const list = r.constructed(TAG.sequence, "attributes");
      r.end("search entry");
      const attributes: Attribute[] = [];
      while (!list.done) {
        const attribute = list.constructed(TAG.sequence, "attribute");
        const type = attribute.string("type");
        const set = attribute.constructed(TAG.set, "values");
        attribute.end("attribute");
        const values: string[] = [];
        while (!set.done) values.push(lenient_string(set.bytes_of("value")));
        attributes.push({ type, values });
      }
      return { op: "search_entry", dn, attributes };
    }
    case OP.search_reference: {
      const r = message.constructed(tag, "search reference");
      const uris: string[] = [];
      while (!r.done) uris.push(r.string("URI"));
      return { op: "search_reference", uris };
    }
    default:
      throw new BerError(`unknown response 0x${(tag ?? 0).toString(16)}`);
  }
}
