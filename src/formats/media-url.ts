/**
 * Media helpers shared by the wire formats (and the importers): `data:` URLs, base64 text, image
 * media types guessed from the data, image detail, and the image part of an image URL.
 * @module
 */
import type { ImagePart } from '../message/schema.js';

/**
 * The media type and base64 payload of any `data:` URL, base64 or percent-encoded (the media type
 * defaults to `text/plain`, as in RFC 2397), or undefined for another URL. For formats that send
 * media inline in their own fields (Anthropic, Gemini), whatever the URL's form.
 */
export function parseDataUrl(url: string): { mediaType: string; data: string } | undefined {
  const match = /^data:([^;,]*)((?:;[^;,]*)*),(.*)$/s.exec(url);
  if (match === null) return undefined;
  const mediaType = (match[1] ?? '').trim() || 'text/plain';
  const payload = match[3] ?? '';
  if (/;base64/i.test(match[2] ?? '')) return { mediaType, data: payload };
  try {
    return { mediaType, data: utf8ToBase64(decodeURIComponent(payload)) };
  } catch {
    return undefined;
  }
}

// The one form `toDataUrl` writes: `type/subtype`, no parameters, non-empty base64.
const CANONICAL_DATA_URL = /^data:[\w.+-]+\/[\w.+-]+;base64,[A-Za-z0-9+/=_-]+$/;

/**
 * The media type and base64 data of a `data:<type>;base64,<data>` URL; undefined for any other
 * URL. For formats that carry media as data URLs (OpenAI, the AI SDK): only the plain form, because
 * a URL with parameters or percent-encoding would not be rebuilt identically by `toDataUrl`.
 */
export function splitDataUrl(url: string): { mediaType: string; data: string } | undefined {
  return CANONICAL_DATA_URL.test(url) ? parseDataUrl(url) : undefined;
}

/** `data:<mediaType>;base64,<data>`. */
export function toDataUrl(data: string, mediaType: string): string {
  return `data:${mediaType};base64,${data}`;
}

// The first base64 characters of each image format's magic bytes.
const IMAGE_SIGNATURES: ReadonlyArray<readonly [string, string]> = [
  ['iVBORw0KGgo', 'image/png'],
  ['/9j/', 'image/jpeg'],
  ['R0lGOD', 'image/gif'],
  ['UklGR', 'image/webp'],
];

/** The image media type of base64 `data` recognised from its magic bytes, or undefined. */
export function sniffImageType(data: string): string | undefined {
  return IMAGE_SIGNATURES.find(([prefix]) => data.startsWith(prefix))?.[1];
}

/**
 * The media type of base64 image data: the declared one, else recognised from its first bytes,
 * else `image/png` (providers need some image type in a data URL).
 */
export function imageMediaType(data: string, declared: string | undefined): string {
  return declared ?? sniffImageType(data) ?? 'image/png';
}

/** Media type given to a file read from a provider that names it only by id or URL. */
export const UNKNOWN_MEDIA_TYPE = 'application/octet-stream';

const IMAGE_DETAILS: ReadonlySet<unknown> = new Set<ImagePart['detail']>(['auto', 'low', 'high']);

/** True for an image detail chatstate models (`auto`, `low`, `high`); others stay in raw parts. */
export function isImageDetail(value: unknown): value is NonNullable<ImagePart['detail']> {
  return IMAGE_DETAILS.has(value);
}

/**
 * The image part of an image URL: its data inline when it is a plain `data:` URL (`splitDataUrl`),
 * else the URL itself, with `detail` when one is given.
 */
export function imageFromUrl(url: string, detail?: ImagePart['detail']): ImagePart {
  const options = detail === undefined ? {} : { detail };
  const inline = splitDataUrl(url);
  return inline === undefined
    ? { type: 'image', url, ...options }
    : { type: 'image', data: inline.data, mediaType: inline.mediaType, ...options };
}

/** Base64 of the UTF-8 bytes of `text` (platform-neutral: no Buffer). */
export function utf8ToBase64(text: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** The UTF-8 text of base64 `data`, or undefined when it is not base64 or not UTF-8. */
export function base64ToUtf8(data: string): string | undefined {
  try {
    const bytes = Uint8Array.from(atob(data), (char) => char.charCodeAt(0));
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}
