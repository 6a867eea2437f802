/**
 * The bounds of what crosses between the run panel and its page: lengths and counts are part of
 * the schemas, so a confused or hostile peer cannot make the other side hold or render unbounded
 * data. Also the zod/mini building blocks the protocol's schemas share.
 */
import * as z from 'zod/mini';

export const PROTOCOL_VERSION = 1;

/** Characters of a message's content (and of its tool parameters) sent to and rendered in the webview. */
export const MAX_WIRE_CONTENT_CHARS = 20_000;
export const MAX_WIRE_ATTACHMENTS = 100;
export const MAX_ATTACHMENT_CHARS = 2_000;
export const MAX_SHORT_CHARS = 200;
export const MAX_ID_CHARS = 1_000;
/** Largest prompt the composer sends; the service's own limit is not documented. */
export const MAX_PROMPT_CHARS = 1_000_000;
export const MAX_BRANCHES = 100;
export const MAX_BRANCH_CHARS = 255;
export const MAX_COPY_CHARS = 5_000_000;
export const MAX_URL_CHARS = 8_192;
export const MAX_STRING_CHARS = 2_000;
export const MAX_MESSAGES_PER_POST = 20_000;
/**
 * Newest messages an `init` of a long run carries; the older ones follow at once in `update`s of
 * `HISTORY_CHUNK`, newest first (see `forPosting`). The page paints the end without waiting
 * for (or validating and cloning) 50,000 messages, and one post stays far below the cap.
 */
export const INIT_MESSAGES = 1_000;
export const HISTORY_CHUNK = 2_000;
/** Messages kept before the first unseen one when `init` is cut, so its divider has context. */
export const UNSEEN_CONTEXT = 20;

export const str = (max: number) => z.string().check(z.maxLength(max));
export const optStr = (max: number) => z.optional(str(max));
export const timestamp = z.optional(z.number().check(z.minimum(-8.64e15), z.maximum(8.64e15)));
export const count = z.int().check(z.minimum(0));
