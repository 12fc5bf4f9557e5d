/**
 * QR codes for TOTP enrolment, drawn locally as SVG (uqr): the otpauth:// URI holds the secret,
 * so it never goes to an outside QR service. Embedded in the page as a data: image, which the
 * page CSP allows (img-src data:) while scripts stay forbidden.
 */
import { renderSVG } from "uqr";

/** An <img src> for `text` as a QR code: a base64 SVG data URL, black on white, quiet zone included. */
export function qr_data_url(text: string): string {
  // ecc M survives a smudged screen or a glare; border 4 is the quiet zone ISO/IEC 18004 asks for.
  const svg = renderSVG(text, { ecc: "M", border: 4, pixelSize: 6, whiteColor: "#ffffff", blackColor: "#000000" });
  return `data:image/svg+xml;base64,${Buffer.from(svg, "utf8").toString("base64")}`;
}
