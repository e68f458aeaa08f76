/** `imageFromUrl`: the image part every reader of an image URL makes, inline for a plain data URL. */
import { describe, expect, it } from 'vitest';
import { imageFromUrl } from './media-url.js';

describe('imageFromUrl', () => {
  it('keeps a plain data URL’s data inline and any other URL as a URL, with the detail when given', () => {
    expect(imageFromUrl('data:image/png;base64,iVBORw0KGgo=', 'low')).toEqual({
      type: 'image',
      data: 'iVBORw0KGgo=',
      mediaType: 'image/png',
      detail: 'low',
    });
    expect(imageFromUrl('https://example.com/cat.png')).toEqual({ type: 'image', url: 'https://example.com/cat.png' });
    // A data URL with parameters would not be rebuilt the same: it stays a URL.
    const withCharset = 'data:image/svg+xml;charset=utf-8;base64,PHN2Zz4=';
    expect(imageFromUrl(withCharset, 'auto')).toEqual({ type: 'image', url: withCharset, detail: 'auto' });
  });
});
