/**
 * Structural checks of a Gemini `{ systemInstruction, contents }` value, as `generateContent`
 * would reject it. Reads `unknown` defensively: garbage yields problems, never an exception.
 *
 * Problem codes: `invalid_wire`, `invalid_message`, `invalid_role`, `invalid_part`,
 * `empty_conversation`, `first_not_user`, `empty_content`, `empty_text`, `misplaced_part`, `missing_tool_result`,
 * `orphan_tool_result`.
 * @module
 */
import type { WireProblem } from './types.js';
import { collectProblems, hasText, isRecord, type Report } from './wire-json.js';

// The fields of the API's `Part.data` one-of: a part carries exactly one of them.
const DATA_FIELDS = [
  'text',
  'inlineData',
  'fileData',
  'functionCall',
  'functionResponse',
  'executableCode',
  'codeExecutionResult',
];

/** A function call or response, for pairing. */
interface Exchange {
  readonly id: string | undefined;
  readonly name: string;
  readonly path: string;
}

function checkPart(
  part: unknown,
  role: 'user' | 'model',
  path: string,
  report: Report,
  calls: Exchange[],
  responses: Exchange[],
): void {
  if (!isRecord(part) || Object.keys(part).length === 0)
    return report('invalid_part', 'A part must be an object with data', path);
  const fields = DATA_FIELDS.filter((field) => part[field] !== undefined);
  if (fields.length > 1) report('invalid_part', `A part carries one kind of data, not ${fields.join(' and ')}`, path);
  const { text, functionCall, functionResponse } = part;
  if (text !== undefined) {
    if (typeof text !== 'string') report('invalid_part', '`text` must be a string', path);
    // A blank part is only accepted as the carrier of a thought signature.
    else if (!hasText(text) && !hasText(part['thoughtSignature']))
      report('empty_text', 'Text parts must not be blank', path);
  }
  if (functionCall !== undefined) {
    if (role !== 'model') report('misplaced_part', 'functionCall parts belong in model contents', path);
    const args = isRecord(functionCall) ? functionCall['args'] : undefined;
    if (!isRecord(functionCall) || !hasText(functionCall['name']) || (args !== undefined && !isRecord(args))) {
      report('invalid_part', 'A functionCall needs a `name` and object `args`', path);
    } else if (role === 'model') {
      calls.push({
        id: hasText(functionCall['id']) ? functionCall['id'] : undefined,
        name: functionCall['name'],
        path,
      });
    }
  }
  if (functionResponse !== undefined) {
    if (role !== 'user') report('misplaced_part', 'functionResponse parts belong in user contents', path);
    if (!isRecord(functionResponse) || !hasText(functionResponse['name']) || !isRecord(functionResponse['response'])) {
      report('invalid_part', 'A functionResponse needs a `name` and an object `response`', path);
    } else if (role === 'user') {
      responses.push({
        id: hasText(functionResponse['id']) ? functionResponse['id'] : undefined,
        name: functionResponse['name'],
        path,
      });
    }
  }
}

/**
 * Pairs the responses of a user content with the calls of the model content right before it: by
 * id when the response has one, otherwise by name (each call answered once).
 */
function checkPairing(calls: readonly Exchange[], responses: readonly Exchange[], report: Report): void {
  const open = calls.slice();
  for (const response of responses) {
    const index = open.findIndex((call) =>
      response.id !== undefined && call.id !== undefined ? call.id === response.id : call.name === response.name,
    );
    if (index < 0) {
      const text = `functionResponse ${response.id ?? response.name} answers no call of the model content right before`;
      report('orphan_tool_result', text, response.path);
    } else {
      open.splice(index, 1);
    }
  }
  for (const call of open) {
    report(
      'missing_tool_result',
      `functionCall ${call.id ?? call.name} has no functionResponse in the next user content`,
      call.path,
    );
  }
}

function checkSystem(system: unknown, report: Report): void {
  if (system === undefined) return;
  if (!isRecord(system) || !Array.isArray(system['parts'])) {
    return report('invalid_wire', '`systemInstruction` must be a content with `parts`', 'systemInstruction');
  }
  if (system['parts'].length === 0)
    report('empty_content', 'The system instruction has no parts', 'systemInstruction.parts');
  system['parts'].forEach((part: unknown, index) => {
    const path = `systemInstruction.parts[${index}]`;
    if (!isRecord(part) || typeof part['text'] !== 'string')
      report('invalid_part', 'The system instruction takes text parts only', path);
    else if (!hasText(part['text'])) report('empty_text', 'Text parts must not be blank', path);
  });
}

function checkContents(contents: readonly unknown[], report: Report): void {
  let pending: Exchange[] = [];
  contents.forEach((content: unknown, index) => {
    const path = `contents[${index}]`;
    const calls: Exchange[] = [];
    const responses: Exchange[] = [];
    const role = isRecord(content) ? content['role'] : undefined;
    if (!isRecord(content)) report('invalid_message', 'Not a content object', path);
    else if (role !== 'user' && role !== 'model') {
      report('invalid_role', `Role ${JSON.stringify(role)} is not allowed: use user or model`, `${path}.role`);
    } else {
      if (index === 0 && role === 'model') report('first_not_user', 'The first content must be a user content', path);
      const parts = content['parts'];
      if (!Array.isArray(parts)) report('invalid_message', '`parts` must be an array', `${path}.parts`);
      else if (parts.length === 0) report('empty_content', 'A content needs at least one part', `${path}.parts`);
      else
        parts.forEach((part: unknown, partIndex) =>
          checkPart(part, role, `${path}.parts[${partIndex}]`, report, calls, responses),
        );
    }
    // Calls are answered by the very next content, which must be the user's.
    checkPairing(pending, responses, report);
    pending = calls;
  });
  checkPairing(pending, [], report);
}

/** Structural problems of a Gemini wire value (empty when the API would accept its structure). */
export function validateGemini(wire: unknown): WireProblem[] {
  return collectProblems((report) => {
    if (!isRecord(wire)) return report('invalid_wire', 'Expected an object with `contents`', '');
    checkSystem(wire['systemInstruction'], report);
    if (!Array.isArray(wire['contents'])) report('invalid_wire', '`contents` must be an array', 'contents');
    // generateContent needs at least one content ("contents is not specified"): a system instruction alone is not one.
    else if (wire['contents'].length === 0)
      report('empty_conversation', '`contents` must hold at least one content', 'contents');
    else checkContents(wire['contents'], report);
  });
}
