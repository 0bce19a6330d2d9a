/** Image formats `view_image` accepts, by their leading bytes. */
const SIGNATURES: readonly { readonly mediaType: string; readonly bytes: readonly (number | undefined)[] }[] = [
  { mediaType: "image/png", bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] },
  { mediaType: "image/jpeg", bytes: [0xff, 0xd8, 0xff] },
  { mediaType: "image/gif", bytes: [0x47, 0x49, 0x46, 0x38] },
  // RIFF....WEBP: bytes 4-7 are the chunk size, whatever they are.
  {
    mediaType: "image/webp",
    bytes: [0x52, 0x49, 0x46, 0x46, undefined, undefined, undefined, undefined, 0x57, 0x45, 0x42, 0x50],
  },
];

/** The media type of an image, from its content; `undefined` for anything else. */
export function imageMediaType(bytes: Uint8Array): string | undefined {
  return SIGNATURES.find(({ bytes: signature }) =>
    signature.every((byte, index) => byte === undefined || bytes[index] === byte),
  )?.mediaType;
}

/** The largest image `view_image` returns, as in the framework's own sandboxes. */
export const MAX_IMAGE_BYTES = 10 * 1024 * 1024;
