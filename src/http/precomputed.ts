/**
 * Conditional responses for precomputed public documents (discovery, JWKS, static files):
 * an ETag, `If-None-Match` → 304 (RFC 9110 §13.1.2), public caching and CORS for any origin
 * (the documents are public; browser-based clients fetch them).
 */
import { Fw, type Context } from "../fw/index.ts";

/** 304 Not Modified: no body, the validators and cache headers already set. */
export class NotModified {
  to_response(context: Context): Response {
    return new Response(null, { status: 304, headers: context.response.headers });
  }
}

/** RFC 9110 §13.1.2: weak comparison against each entity tag of If-None-Match (or `*`). */
export function etag_matches(if_none_match: string | null, etag: string): boolean {
  if (if_none_match === null) return false;
  const strip = (tag: string) => tag.trim().replace(/^W\//, "");
  const mine = strip(etag);
  return if_none_match.split(",").some((tag) => {
    const t = tag.trim();
    return t === "*" || strip(t) === mine;
  });
}

/** The document's bytes, or 304 when the client's copy is current. */
export function cached_bytes(
  context: Context,
  body: Uint8Array | string,
  content_type: string,
  etag: string,
  max_age: number,
): InstanceType<typeof Fw.Response.Bytes> | NotModified {
  const headers = context.response.headers;
  headers.set("etag", etag);
  headers.set("cache-control", `public, max-age=${max_age}`);
  headers.set("access-control-allow-origin", "*");
  if (etag_matches(context.headers.get("if-none-match"), etag)) return new NotModified();
  return new Fw.Response.Bytes(body, content_type);
}
