/**
 * XML as hostile input: the one way a SAML message from a browser (or a metadata document from
 * an operator) becomes a DOM. Every check runs before the parser sees a byte it would act on:
 *
 * - size: the encoded value, then the decoded bytes, then (HTTP-Redirect) the inflated bytes are
 *   capped; DEFLATE output is cut off at the cap as it is produced (a "zip bomb" of a few
 *   kilobytes would otherwise inflate to gigabytes);
 * - base64 (SAML Bindings §3.4.4.1, §3.5.4) is decoded strictly: a character outside the
 *   alphabet is refused, never skipped;
 * - the text must be UTF-8 (XML 1.0 §4.3.3), and holds no document type declaration at all: no
 *   DTD, so no external entities (XXE) and no entity expansion (billion laughs). SAML's messages
 *   and metadata are defined by XML Schema alone and never need one;
 * - the parser (@xmldom/xmldom) raises on every warning and error instead of recovering;
 * - no processing instruction but the XML declaration, and a bounded nesting depth (the
 *   canonicalization of a signature recurses).
 *
 * Reading the DOM goes through the helpers below: elements by namespace and local name, exactly
 * one where the schema allows one, and text that is only text (a comment inside a value, the
 * "comment injection" of CVE-2017-11427 and kin, is refused rather than read around).
 */
import { inflateRawSync } from "node:zlib";
import { DOMParser, type Document, type Element, type Node } from "@xmldom/xmldom";

/** The largest decoded SAML message this provider reads (an AuthnRequest is a few kilobytes). */
export const MAX_MESSAGE_BYTES = 64 * 1024;
/** The largest metadata document of a service provider (several certificates and endpoints). */
export const MAX_METADATA_BYTES = 512 * 1024;
/** Deepest element nesting accepted: SAML messages and metadata nest a dozen levels. */
export const MAX_DEPTH = 48;

/** Why a message was not read; `reason` is for the log and the audit, in plain words. */
export class XmlRejected extends Error {
  override name = "XmlRejected";
  constructor(readonly reason: string) {
    super(reason);
  }
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Strict base64 (RFC 4648 §4): whitespace between characters is allowed (line breaks), nothing else is skipped. */
export function decode_base64(value: string, max_bytes: number): Uint8Array {
  // The cap before any work: 4 characters per 3 bytes, plus line breaks.
  if (value.length > Math.ceil(max_bytes / 3) * 4 * 1.1 + 64) throw new XmlRejected(`the message is larger than ${max_bytes} bytes`);
  const compact = value.replace(/[\t\n\r ]+/g, "");
  if (compact.length === 0) throw new XmlRejected("the message is empty");
  if (compact.length % 4 !== 0 || !BASE64.test(compact)) throw new XmlRejected("the message is not valid base64");
  const bytes = Buffer.from(compact, "base64");
  if (bytes.byteLength > max_bytes) throw new XmlRejected(`the message is larger than ${max_bytes} bytes`);
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * Raw DEFLATE (RFC 1951; SAML Bindings §3.4.4.1) with the output capped: inflating stops with
 * an error as soon as it would pass `max_bytes`.
 */
export function inflate(bytes: Uint8Array, max_bytes: number): Uint8Array {
  try {
    const out = inflateRawSync(bytes, { maxOutputLength: max_bytes });
    return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
  } catch (error) {
    if (error instanceof RangeError || (error as { code?: unknown }).code === "ERR_BUFFER_TOO_LARGE") {
      throw new XmlRejected(`the message inflates to more than ${max_bytes} bytes`);
    }
    throw new XmlRejected("the message is not valid DEFLATE data");
  }
}

const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

/** No DTD in any form, in any case (XML 1.0 §2.8 doctypedecl; §4.2 entity declarations). */
const DECLARATIONS = /<!(?:DOCTYPE|ENTITY|ELEMENT|ATTLIST|NOTATION)/i;

/** UTF-8 bytes as text (XML 1.0 §4.3.3), within `max_bytes`; XmlRejected for anything else. */
export function utf8_text(bytes: Uint8Array, max_bytes: number = MAX_MESSAGE_BYTES): string {
  if (bytes.byteLength > max_bytes) throw new XmlRejected(`the document is larger than ${max_bytes} bytes`);
  try {
    return UTF8.decode(bytes);
  } catch {
    throw new XmlRejected("the document is not UTF-8");
  }
}

/** Parses `input` (UTF-8 bytes or text) within the limits above; XmlRejected when it is not acceptable. */
export function parse_xml(input: Uint8Array | string, max_bytes: number = MAX_MESSAGE_BYTES): Document {
  let text: string;
  if (typeof input === "string") {
    if (Buffer.byteLength(input, "utf8") > max_bytes) throw new XmlRejected(`the document is larger than ${max_bytes} bytes`);
    text = input;
  } else {
    text = utf8_text(input, max_bytes);
  }
  if (DECLARATIONS.test(text)) throw new XmlRejected("the document has a DTD (document type or entity declaration), which SAML never uses");
  let doc: Document;
  try {
    doc = new DOMParser({
      // Recovery hides malformed input: every warning and error stops the parse.
      onError: (level, message) => {
        throw new XmlRejected(`the document is not well-formed XML (${level}: ${String(message).slice(0, 160)})`);
      },
    }).parseFromString(text, "text/xml");
  } catch (error) {
    if (error instanceof XmlRejected) throw error;
    throw new XmlRejected(`the document is not well-formed XML (${error instanceof Error ? error.message.slice(0, 160) : "error"})`);
  }
  check_structure(doc);
  return doc;
}

const ELEMENT_NODE = 1;
const TEXT_NODE = 3;
const CDATA_SECTION_NODE = 4;
const PROCESSING_INSTRUCTION_NODE = 7;
const DOCUMENT_TYPE_NODE = 10;

/** One root element; no processing instruction but the XML declaration; nesting within MAX_DEPTH. */
function check_structure(doc: Document): void {
  if (doc.documentElement === null) throw new XmlRejected("the document has no root element");
  // Iterative, so a hostile depth cannot exhaust the stack here.
  const stack: { node: Node; depth: number }[] = [{ node: doc, depth: 0 }];
  while (stack.length > 0) {
    const { node, depth } = stack.pop()!;
    for (let child = node.firstChild; child !== null; child = child.nextSibling) {
      if (child.nodeType === DOCUMENT_TYPE_NODE) throw new XmlRejected("the document has a DTD (document type or entity declaration), which SAML never uses");
      if (child.nodeType === PROCESSING_INSTRUCTION_NODE && !(node === doc && child === doc.firstChild && child.nodeName === "xml")) {
        throw new XmlRejected("the document has a processing instruction");
      }
      if (child.nodeType === ELEMENT_NODE) {
        if (depth + 1 > MAX_DEPTH) throw new XmlRejected(`the document nests deeper than ${MAX_DEPTH} elements`);
        stack.push({ node: child, depth: depth + 1 });
      }
    }
  }
}

/** base64 → text: the XML of a message of the HTTP-POST binding (SAML Bindings §3.5.4), not yet parsed. */
export function post_message_text(value: string, max_bytes: number = MAX_MESSAGE_BYTES): string {
  return utf8_text(decode_base64(value, max_bytes), max_bytes);
}

/** base64 → DEFLATE → text: the XML of a message of the HTTP-Redirect binding (SAML Bindings §3.4.4.1). */
export function redirect_message_text(value: string, max_bytes: number = MAX_MESSAGE_BYTES): string {
  // The compressed form is smaller than what it inflates to: the same cap bounds it.
  return utf8_text(inflate(decode_base64(value, max_bytes), max_bytes), max_bytes);
}

/** A message of the HTTP-POST binding, parsed. */
export function decode_post_message(value: string, max_bytes: number = MAX_MESSAGE_BYTES): Document {
  return parse_xml(post_message_text(value, max_bytes), max_bytes);
}

/** A message of the HTTP-Redirect binding, parsed. */
export function decode_redirect_message(value: string, max_bytes: number = MAX_MESSAGE_BYTES): Document {
  return parse_xml(redirect_message_text(value, max_bytes), max_bytes);
}

// ---------------------------------------------------------------------------------------------
// Reading the DOM.

/** The child elements of `parent` named `local` in namespace `ns`, in document order. */
export function children(parent: Element, ns: string, local: string): Element[] {
  const out: Element[] = [];
  for (let child = parent.firstChild; child !== null; child = child.nextSibling) {
    if (child.nodeType === ELEMENT_NODE && (child as Element).namespaceURI === ns && (child as Element).localName === local) out.push(child as Element);
  }
  return out;
}

/** Every child element of `parent`. */
export function child_elements(parent: Element): Element[] {
  const out: Element[] = [];
  for (let child = parent.firstChild; child !== null; child = child.nextSibling) if (child.nodeType === ELEMENT_NODE) out.push(child as Element);
  return out;
}

/** The one child `ns:local` of `parent`, null when absent; XmlRejected when repeated (the schema allows one). */
export function optional_child(parent: Element, ns: string, local: string): Element | null {
  const found = children(parent, ns, local);
  if (found.length > 1) throw new XmlRejected(`<${local}> appears ${found.length} times where one is allowed`);
  return found[0] ?? null;
}

/** The one child `ns:local` of `parent`; XmlRejected when absent or repeated. */
export function required_child(parent: Element, ns: string, local: string): Element {
  const found = optional_child(parent, ns, local);
  if (found === null) throw new XmlRejected(`<${local}> is missing`);
  return found;
}

/** Is `element` the element `ns:local`? */
export function is_element(element: Element, ns: string, local: string): boolean {
  return element.namespaceURI === ns && element.localName === local;
}

/**
 * The text content of an element that holds only text (and CDATA), trimmed. A comment, a
 * processing instruction or a child element inside is refused: "admin@example.com<!---->.evil"
 * must not read as two different values to two different readers.
 */
export function text_of(element: Element): string {
  let text = "";
  for (let child = element.firstChild; child !== null; child = child.nextSibling) {
    if (child.nodeType !== TEXT_NODE && child.nodeType !== CDATA_SECTION_NODE) {
      throw new XmlRejected(`<${element.localName}> holds something other than text (a comment or an element)`);
    }
    text += child.nodeValue ?? "";
  }
  return text.trim();
}

/** An attribute without namespace; null when absent. */
export function attribute(element: Element, name: string): string | null {
  return element.hasAttribute(name) ? element.getAttribute(name) : null;
}

/** xs:boolean (XML Schema 2 §3.2.2): "true"/"1" or "false"/"0"; `fallback` when absent. */
export function boolean_attribute(element: Element, name: string, fallback: boolean): boolean {
  const value = attribute(element, name);
  if (value === null) return fallback;
  const trimmed = value.trim();
  if (trimmed === "true" || trimmed === "1") return true;
  if (trimmed === "false" || trimmed === "0") return false;
  throw new XmlRejected(`${name}="${value.slice(0, 40)}" is not a boolean`);
}

/**
 * Escapes text for an XML attribute value or element content (XML 1.0 §2.4, §3.3.3). Line ends
 * and tabs become character references, so neither attribute normalization nor line-end
 * handling changes them. So do U+0085 and U+2028, which XML 1.1 (§2.11) reads as line ends, and
 * U+2029, which @xmldom/xmldom reads as one too: a value must mean the same to our signer as to
 * the verifier. And U+FFFD, which @xmldom/xmldom warns about when it meets it literally.
 */
export function escape_xml(value: string): string {
  return xml_chars(value).replace(/[&<>"'\r\n\t\u0085\u2028\u2029\uFFFD]/g, (c) => ESCAPES[c]!);
}

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&apos;",
  "\r": "&#13;",
  "\n": "&#10;",
  "\t": "&#9;",
  "\u0085": "&#133;",
  "\u2028": "&#8232;",
  "\u2029": "&#8233;",
  "\uFFFD": "&#65533;",
};

/** Characters XML 1.0 §2.2 cannot carry at all (a control character in a user's name) are dropped. */
export function xml_chars(value: string): string {
  return value.replace(/[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, "");
}
