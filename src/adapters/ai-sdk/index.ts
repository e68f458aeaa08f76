/**
 * `chatstate/ai-sdk`: a chat store for the Vercel AI SDK's `useChat` (`ai` 6.x). `UIMessage[]`
 * lists are kept in chatstate sessions — one session per chat, each UI message as provider-valid
 * chatstate messages, restored exactly on load — so stored chats survive reloads with tool calls
 * in every state, reasoning, data parts, files, sources and metadata.
 *
 * ```ts
 * const chats = createChatStore({ store: fileStore('./chats') });
 * const messages = await chats.loadChat(id);
 * // … streamText(…).toUIMessageStreamResponse({ originalMessages, onFinish: ({ messages }) => chats.saveChat({ id, messages }) })
 * ```
 * @module
 */
export {
  createChatStore,
  ChatConflictError,
  type ChatStore,
  type ChatStoreOptions,
  type SaveChatInput,
  type SaveChatResult,
  type StoredChat,
} from './chat-store.js';
export { withMessage } from './with-message.js';
export { LAYOUT_KEY } from './stored-layout.js';
export type { GroupHead, GroupMember, StoredPart, MovedField } from './stored-layout.js';
