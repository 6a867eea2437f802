/**
 * Small HTTP helpers shared by the API, admin and foreign listeners.
 */
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { ServiceError } from './errors';

/** A response not yet written: handlers return these so faults can alter them. */
export interface Reply {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The value `body` serialises, for JSON replies. */
  json?: unknown;
}

export const JSON_TYPE = 'application/json; charset=utf-8';

export function jsonReply(status: number, value: unknown, headers: Record<string, string> = {}): Reply {
  return { status, headers: { 'content-type': JSON_TYPE, ...headers }, body: JSON.stringify(value), json: value };
}

export function errorReply(error: ServiceError): Reply {
  return jsonReply(error.status, error.body(), error.headers);
}

export function emptyReply(status: number, headers: Record<string, string> = {}): Reply {
  return { status, headers, body: '' };
}

export function flattenHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

export interface ReadBody {
  text: string;
  /** More than `limit` bytes were sent; `text` holds only the first `limit`. */
  tooLarge: boolean;
}

/** Reads the whole body, keeping at most `limit` bytes (the rest is drained, not stored). */
export function readBody(req: IncomingMessage, limit: number): Promise<ReadBody> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      if (size + chunk.length > limit) {
        tooLarge = true;
        const room = limit - size;
        if (room > 0) chunks.push(chunk.subarray(0, room));
        size = limit;
        return;
      }
      chunks.push(chunk);
      size += chunk.length;
    });
    req.on('end', () => resolve({ text: Buffer.concat(chunks).toString('utf8'), tooLarge }));
    req.on('error', reject);
    req.on('close', () => {
      if (!req.complete) reject(new Error('The client closed the connection before the body ended.'));
    });
  });
}

export function isJsonContentType(value: string | undefined): boolean {
  if (value === undefined) return false;
  const mediaType = value.split(';')[0].trim().toLowerCase();
  return mediaType === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(mediaType);
}

/** Parses a JSON request body, or throws `invalid_request`. */
export function parseJsonBody(text: string): unknown {
  if (text.trim() === '') throw ServiceError.invalid(undefined, 'The request body is empty; send a JSON object.');
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw ServiceError.invalid(undefined, `The request body is not valid JSON (${detail}).`);
  }
}
