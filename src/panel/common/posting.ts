/**
 * How the extension posts a protocol message to the page: one too big for a single post is cut
 * into several (see `forPosting`). No `vscode` import, no DOM use.
 */
import { INIT_MESSAGES, HISTORY_CHUNK, MAX_MESSAGES_PER_POST, UNSEEN_CONTEXT } from './limits';
import type { ExtensionToWebviewMessage } from './protocol';

/**
 * A message as it is posted: an `init` or `update` with more messages than fit in one post is
 * cut into several — an `init` with the newest messages (from the first unseen one, when that
 * is not too far back), then `update`s with the older ones, newest chunk first. The page files
 * each message by its order fields, so the result is the same as one big post.
 */
export function forPosting(message: ExtensionToWebviewMessage): ExtensionToWebviewMessage[] {
  if (message.type === 'init') {
    const all = message.messages;
    if (all.length <= INIT_MESSAGES) {
      return [message];
    }
    let cut = all.length - INIT_MESSAGES;
    if (message.firstUnseenKey !== undefined) {
      const unseen = all.findIndex((m) => m.key === message.firstUnseenKey);
      if (unseen >= 0) {
        cut = Math.max(all.length - MAX_MESSAGES_PER_POST, Math.min(cut, unseen - UNSEEN_CONTEXT));
      }
    }
    cut = Math.max(0, cut);
    const out: ExtensionToWebviewMessage[] = [{ ...message, messages: all.slice(cut) }];
    for (let end = cut; end > 0; end -= HISTORY_CHUNK) {
      out.push({ type: 'update', messages: all.slice(Math.max(0, end - HISTORY_CHUNK), end) });
    }
    return out;
  }
  if (message.type === 'update' && message.messages && message.messages.length > MAX_MESSAGES_PER_POST) {
    const all = message.messages;
    const out: ExtensionToWebviewMessage[] = [{ ...message, messages: all.slice(0, HISTORY_CHUNK) }];
    for (let start = HISTORY_CHUNK; start < all.length; start += HISTORY_CHUNK) {
      out.push({ type: 'update', messages: all.slice(start, start + HISTORY_CHUNK) });
    }
    return out;
  }
  return [message];
}
