/** Raster formats `view_image` accepts, by their leading bytes (`undefined`: any byte). */
const SIGNATURES: readonly { readonly mediaType: string; readonly bytes: readonly (number | undefined)[] }[] = [
  { mediaType: "image/png", bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] },
  { mediaType: "image/jpeg", bytes: [0xff, 0xd8, 0xff] },
  { mediaType: "image/gif", bytes: [0x47, 0x49, 0x46, 0x38] },
  // RIFF....WEBP: bytes 4-7 are the chunk size, whatever they are.
  {
    mediaType: "image/webp",
    bytes: [0x52, 0x49, 0x46, 0x46, undefined, undefined, undefined, undefined, 0x57, 0x45, 0x42, 0x50],
  },
  { mediaType: "image/bmp", bytes: [0x42, 0x4d] },
  // TIFF and BigTIFF, little- and big-endian.
  { mediaType: "image/tiff", bytes: [0x49, 0x49, 0x2a, 0x00] },
  { mediaType: "image/tiff", bytes: [0x4d, 0x4d, 0x00, 0x2a] },
  { mediaType: "image/tiff", bytes: [0x49, 0x49, 0x2b, 0x00] },
  { mediaType: "image/tiff", bytes: [0x4d, 0x4d, 0x00, 0x2b] },
];

const SVG = "image/svg+xml";
/** How far into a file its SVG root element is looked for (past an XML declaration, comments, a doctype). */
const SVG_SNIFF_BYTES = 512;

/** Whether `bytes` begin (after white space) with an `<svg` element, or an XML declaration followed by one. */
function looksLikeSvg(bytes: Uint8Array): boolean {
  const head = new TextDecoder().decode(bytes.subarray(0, SVG_SNIFF_BYTES)).trimStart().toLowerCase();
  return head.startsWith("<svg") || (head.startsWith("<?xml") && head.includes("<svg"));
}

/**
 * The media type of an image, as the framework's own sandboxes tell it: PNG,
 * JPEG, GIF, WebP, BMP and TIFF by their signatures, SVG by its markup, and
 * otherwise a path named `.svg` or `.svgz` (a gzipped SVG has no telling
 * bytes) is SVG. `undefined` for anything else.
 */
export function imageMediaType(bytes: Uint8Array, path?: string): string | undefined {
  const raster = SIGNATURES.find(
    ({ bytes: signature }) =>
      bytes.byteLength >= signature.length &&
      signature.every((byte, index) => byte === undefined || bytes[index] === byte),
  )?.mediaType;
  if (raster !== undefined) return raster;
  if (looksLikeSvg(bytes)) return SVG;
  const name = path?.trim().toLowerCase() ?? "";
  return name.endsWith(".svg") || name.endsWith(".svgz") ? SVG : undefined;
}

/** The largest image `view_image` returns, as in the framework's own sandboxes. */
export const MAX_IMAGE_BYTES = 10 * 1024 * 1024;
