// Content negotiation on the FIRST media type of Accept only (no q-value ranking):
// text/html -> html, text/plain -> text, everything else (or nothing) -> json.
export type Representation = "json" | "html" | "text";

export function negotiate(accept: string | null): Representation {
  if (!accept) return "json";
  let end = accept.length;
  const comma = accept.indexOf(",");
  if (comma !== -1) end = comma;
  const semi = accept.indexOf(";");
  if (semi !== -1 && semi < end) end = semi;
  const type = accept.slice(0, end).trim().toLowerCase();
  if (type === "text/html") return "html";
  if (type === "text/plain") return "text";
  return "json";
}
