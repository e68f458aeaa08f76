/**
 * Text generators of the benchmark corpus: English prose, markdown answers with fenced
 * TypeScript/Python blocks, and identifiers. Every piece is tagged with its content kind so the
 * token benches can report the estimate's error per kind.
 * @module
 */
import type { Random } from './random.js';
import { CONTENT_WORDS, FUNCTION_WORDS, IDENTIFIER_PARTS, NAMES, RARE_WORDS } from './words.js';

/** The kinds of content the token benches report on. */
export type ContentKind = 'prose' | 'code' | 'jsonArgs' | 'jsonOutputs';

/** All content kinds, in report order. */
export const CONTENT_KINDS: readonly ContentKind[] = ['prose', 'code', 'jsonArgs', 'jsonOutputs'];

/** A piece of a message's text and its kind; a message's text is its segments concatenated. */
export interface Segment {
  readonly kind: ContentKind;
  readonly text: string;
}

const capitalize = (word: string): string => word.charAt(0).toUpperCase() + word.slice(1);

/** An identifier of 1–3 parts in the given style. */
export function identifier(random: Random, style: 'camel' | 'snake' | 'pascal' = 'camel'): string {
  const parts: string[] = [];
  const count = random.weighted([
    [1, 3],
    [2, 5],
    [3, 2],
  ] as const);
  for (let i = 0; i < count; i++) parts.push(random.pick(IDENTIFIER_PARTS));
  if (style === 'snake') return parts.join('_');
  if (style === 'pascal') return parts.map(capitalize).join('');
  return parts[0] + parts.slice(1).map(capitalize).join('');
}

/** A relative file path such as `src/session/token-budget.ts`. */
export function filePath(random: Random, extension = 'ts'): string {
  const depth = random.int(0, 2);
  const folders = ['src', 'lib', 'test', 'app', 'packages/core/src'];
  let path = random.pick(folders);
  for (let i = 0; i < depth; i++) path += `/${random.pick(IDENTIFIER_PARTS)}`;
  const name = identifier(random, 'snake').replaceAll('_', '-');
  return `${path}/${name}.${extension}`;
}

function word(random: Random): string {
  const roll = random.next();
  if (roll < 0.47) return random.pick(FUNCTION_WORDS);
  if (roll < 0.95) return random.pick(CONTENT_WORDS);
  if (roll < 0.98) return random.pick(RARE_WORDS);
  return random.pick(NAMES);
}

/** One English sentence, sometimes with a number, an inline code span or a parenthesis. */
export function sentence(random: Random): string {
  const length = random.int(6, 24);
  const words: string[] = [];
  for (let i = 0; i < length; i++) {
    let next = word(random);
    const roll = random.next();
    if (roll < 0.03) next = `\`${identifier(random)}()\``;
    else if (roll < 0.05) next = String(random.int(2, random.pick([10, 100, 5000])));
    else if (roll < 0.06) next = `(${next})`;
    else if (roll < 0.075) next = `\`${filePath(random)}\``;
    words.push(next);
    if (i > 3 && i < length - 2 && random.chance(0.07)) words[words.length - 1] += ',';
  }
  words[0] = capitalize(words[0] ?? 'the');
  const end = random.weighted([
    ['.', 80],
    ['?', 12],
    ['!', 3],
    [':', 5],
  ] as const);
  return words.join(' ') + end;
}

/** A paragraph of 1–6 sentences. */
export function paragraph(random: Random, min = 1, max = 6): string {
  const sentences: string[] = [];
  const count = random.int(min, max);
  for (let i = 0; i < count; i++) sentences.push(sentence(random));
  return sentences.join(' ');
}

/** A markdown bullet or numbered list. */
export function list(random: Random): string {
  const numbered = random.chance(0.4);
  const items: string[] = [];
  const count = random.int(2, 6);
  for (let i = 0; i < count; i++) {
    const marker = numbered ? `${i + 1}.` : '-';
    const lead = random.chance(0.4) ? `**${capitalize(random.pick(CONTENT_WORDS))}**: ` : '';
    items.push(`${marker} ${lead}${sentence(random)}`);
  }
  return items.join('\n');
}

const TS_TYPES = [
  'string',
  'number',
  'boolean',
  'string[]',
  'Record<string, unknown>',
  'Message',
  'User',
  'Promise<void>',
  'Date',
];

function tsStatement(random: Random, indent: string): string {
  const a = identifier(random);
  const b = identifier(random);
  switch (random.int(0, 8)) {
    case 0:
      return `${indent}const ${a} = await ${b}(${identifier(random)}, { ${random.pick(IDENTIFIER_PARTS)}: ${random.int(1, 500)} });`;
    case 1:
      return `${indent}if (${a} === undefined || ${a}.length === 0) {\n${indent}  throw new Error(\`${capitalize(random.pick(CONTENT_WORDS))} ${random.pick(CONTENT_WORDS)}: \${${b}}\`);\n${indent}}`;
    case 2:
      return `${indent}for (const ${random.pick(IDENTIFIER_PARTS)} of ${a}) {\n${indent}  ${b}.push(${random.pick(IDENTIFIER_PARTS)}.${identifier(random)});\n${indent}}`;
    case 3:
      return `${indent}// ${sentence(random)}`;
    case 4:
      return `${indent}let ${a}: ${random.pick(TS_TYPES)} = ${random.pick(['null', '0', "''", '[]', '{}', 'new Map()'])};`;
    case 5:
      return `${indent}${a}.${b} = ${identifier(random)}.filter((item) => item.${random.pick(IDENTIFIER_PARTS)} > ${random.int(0, 99)});`;
    case 6:
      return `${indent}return { ...${a}, ${b}: ${identifier(random)}.map((x) => x * ${random.int(2, 9)}) };`;
    case 7:
      return `${indent}const ${a} = ${b}.get('${random.pick(IDENTIFIER_PARTS)}') ?? ${random.int(0, 1000)};`;
    default:
      return `${indent}console.log(\`${random.pick(CONTENT_WORDS)} \${${a}.length} ${random.pick(CONTENT_WORDS)}\`);`;
  }
}

/** A TypeScript snippet: an interface and/or a function or class. */
export function typescript(random: Random): string {
  const lines: string[] = [];
  if (random.chance(0.35)) {
    lines.push(
      `import { ${identifier(random, 'pascal')}, ${identifier(random)} } from './${identifier(random, 'snake').replaceAll('_', '-')}.js';`,
      '',
    );
  }
  if (random.chance(0.4)) {
    lines.push(`export interface ${identifier(random, 'pascal')} {`);
    for (let i = random.int(2, 6); i > 0; i--) {
      lines.push(
        `  ${random.chance(0.3) ? 'readonly ' : ''}${identifier(random)}${random.chance(0.3) ? '?' : ''}: ${random.pick(TS_TYPES)};`,
      );
    }
    lines.push('}', '');
  }
  const name = identifier(random);
  const params = [`${identifier(random)}: ${random.pick(TS_TYPES)}`];
  if (random.chance(0.5)) params.push(`${identifier(random)} = ${random.int(1, 100)}`);
  lines.push(
    `export ${random.chance(0.5) ? 'async ' : ''}function ${name}(${params.join(', ')}): ${random.pick(TS_TYPES)} {`,
  );
  for (let i = random.int(2, 9); i > 0; i--) lines.push(tsStatement(random, '  '));
  lines.push('}');
  return lines.join('\n');
}

function pyStatement(random: Random, indent: string): string {
  const a = identifier(random, 'snake');
  const b = identifier(random, 'snake');
  switch (random.int(0, 7)) {
    case 0:
      return `${indent}${a} = ${b}.get("${random.pick(IDENTIFIER_PARTS)}", ${random.int(0, 100)})`;
    case 1:
      return `${indent}for ${random.pick(IDENTIFIER_PARTS)} in ${a}:\n${indent}    ${b}.append(${random.pick(IDENTIFIER_PARTS)}["${random.pick(IDENTIFIER_PARTS)}"])`;
    case 2:
      return `${indent}if not ${a}:\n${indent}    raise ValueError(f"${random.pick(CONTENT_WORDS)} {${b}!r} is ${random.pick(CONTENT_WORDS)}")`;
    case 3:
      return `${indent}# ${sentence(random)}`;
    case 4:
      return `${indent}${a} = [x for x in ${b} if x.${random.pick(IDENTIFIER_PARTS)} > ${random.int(0, 50)}]`;
    case 5:
      return `${indent}${a} = await self.${b}(${identifier(random, 'snake')}, timeout=${random.int(1, 60)})`;
    case 6:
      return `${indent}logger.info("%s ${random.pick(CONTENT_WORDS)}: %d", ${a}, len(${b}))`;
    default:
      return `${indent}return {"${random.pick(IDENTIFIER_PARTS)}": ${a}, "${random.pick(IDENTIFIER_PARTS)}": ${b}}`;
  }
}

/** A Python snippet: a function or a class with a method. */
export function python(random: Random): string {
  const lines: string[] = [];
  if (random.chance(0.4)) lines.push(`from ${identifier(random, 'snake')} import ${identifier(random, 'pascal')}`, '');
  let indent = '    ';
  if (random.chance(0.35)) {
    lines.push(`class ${identifier(random, 'pascal')}:`, `    """${sentence(random)}"""`, '');
    lines.push(
      `    ${random.chance(0.5) ? 'async ' : ''}def ${identifier(random, 'snake')}(self, ${identifier(random, 'snake')}: ${random.pick(['str', 'int', 'list[dict]', 'dict[str, Any]'])}) -> ${random.pick(['None', 'dict', 'bool', 'list[str]'])}:`,
    );
    indent = '        ';
  } else {
    lines.push(
      `def ${identifier(random, 'snake')}(${identifier(random, 'snake')}: ${random.pick(['str', 'int', 'list[dict]', 'Path'])}) -> ${random.pick(['None', 'dict', 'bool', 'list[str]'])}:`,
    );
  }
  for (let i = random.int(2, 8); i > 0; i--) lines.push(pyStatement(random, indent));
  return lines.join('\n');
}

/** A fenced code block in TypeScript (60%) or Python. */
export function codeBlock(random: Random): string {
  return random.chance(0.6) ? `\`\`\`ts\n${typescript(random)}\n\`\`\`` : `\`\`\`python\n${python(random)}\n\`\`\``;
}

/** A user message: a question or request, sometimes with pasted code or an error. */
export function userMessage(random: Random): Segment[] {
  const segments: Segment[] = [{ kind: 'prose', text: paragraph(random, 1, 3) }];
  const roll = random.next();
  if (roll < 0.12) {
    segments.push({ kind: 'code', text: `\n\n${codeBlock(random)}` });
  } else if (roll < 0.2) {
    const error = `${identifier(random, 'pascal')}Error: ${sentence(random)}\n    at ${identifier(random)} (${filePath(random, 'js')}:${random.int(1, 400)}:${random.int(1, 80)})`;
    segments.push({ kind: 'prose', text: `\n\n\`\`\`\n${error}\n\`\`\`` });
  }
  return segments;
}

/** An assistant answer: one paragraph, or (1 in 4) a multi-paragraph markdown answer. */
export function assistantAnswer(random: Random): Segment[] {
  if (!random.chance(0.25)) return [{ kind: 'prose', text: paragraph(random, 1, 3) }];
  const segments: Segment[] = [];
  const blocks = random.int(2, 5);
  for (let i = 0; i < blocks; i++) {
    const separator = i === 0 ? '' : '\n\n';
    const roll = random.next();
    if (roll < 0.3) {
      segments.push({ kind: 'prose', text: `${separator}${paragraph(random, 2, 5)}` });
    } else if (roll < 0.5) {
      segments.push({
        kind: 'prose',
        text: `${separator}## ${capitalize(random.pick(CONTENT_WORDS))} ${random.pick(CONTENT_WORDS)}\n\n${paragraph(random, 1, 3)}`,
      });
    } else if (roll < 0.7) {
      segments.push({ kind: 'prose', text: `${separator}${list(random)}` });
    } else {
      // The blank line before a block goes with the block: a lone "\n\n" text would skew per-text rounding.
      segments.push({ kind: 'code', text: `${separator}${codeBlock(random)}` });
    }
  }
  return segments;
}
