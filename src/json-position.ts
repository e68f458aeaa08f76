/**
 * Where JSON text stops being JSON: the offset of the first error, found by a small scanner of the
 * JSON grammar (Node 20's `JSON.parse` gives a position for only some errors), as line:column.
 * @module
 */

/** A place in a text, 1-based. */
export interface TextPosition {
  readonly line: number;
  readonly column: number;
}

/** The line and column of `offset` in `text`. */
export function positionOf(text: string, offset: number): TextPosition {
  let line = 1;
  let lineStart = 0;
  for (let index = 0; index < offset && index < text.length; index++) {
    if (text.charCodeAt(index) === 10) {
      line++;
      lineStart = index + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

class Stop {
  constructor(readonly offset: number) {}
}

/** The offset of the first JSON syntax error in `text`, or `undefined` when it is valid JSON. */
export function jsonErrorOffset(text: string): number | undefined {
  let index = 0;
  const space = (): void => {
    while (index < text.length && ' \t\n\r'.includes(text[index] as string)) index++;
  };
  const expect = (char: string): void => {
    if (text[index] !== char) throw new Stop(index);
    index++;
  };
  const literal = (word: string): void => {
    for (const char of word) expect(char);
  };
  const string = (): void => {
    expect('"');
    for (;;) {
      const char = text[index];
      if (char === undefined || char.charCodeAt(0) < 0x20) throw new Stop(index);
      index++;
      if (char === '"') return;
      if (char === '\\') {
        const escape = text[index];
        if (escape === 'u') {
          for (let digit = 1; digit <= 4; digit++)
            if (!/[0-9a-fA-F]/.test(text[index + digit] ?? '')) throw new Stop(index + digit);
          index += 5;
        } else if (escape !== undefined && '"\\/bfnrt'.includes(escape)) index++;
        else throw new Stop(index);
      }
    }
  };
  const number = (): void => {
    const match = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(index, index + 400));
    if (match === null) throw new Stop(index);
    index += match[0].length;
  };
  const value = (depth: number): void => {
    if (depth > 10_000) throw new Stop(index);
    space();
    const char = text[index];
    if (char === '{') {
      index++;
      space();
      if (text[index] === '}') {
        index++;
        return;
      }
      for (;;) {
        space();
        string();
        space();
        expect(':');
        value(depth + 1);
        space();
        if (text[index] === ',') index++;
        else return expect('}');
      }
    }
    if (char === '[') {
      index++;
      space();
      if (text[index] === ']') {
        index++;
        return;
      }
      for (;;) {
        value(depth + 1);
        space();
        if (text[index] === ',') index++;
        else return expect(']');
      }
    }
    if (char === '"') return string();
    if (char === 't') return literal('true');
    if (char === 'f') return literal('false');
    if (char === 'n') return literal('null');
    return number();
  };
  try {
    value(0);
    space();
    return index < text.length ? index : undefined;
  } catch (error) {
    if (error instanceof Stop) return error.offset;
    throw error;
  }
}
