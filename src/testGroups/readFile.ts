/** Reading a test file's text: bounded, off the editor's buffer when the file is open. */
import * as fs from 'node:fs/promises';
import * as vscode from 'vscode';
import { sameUri } from './targets';

export type ReadProblem = 'binary' | 'unreadable';

export interface ReadText {
  text: string;
  /** Set when only the first `readBytes` of `totalBytes` were read. */
  cut?: { readBytes: number; totalBytes: number };
}

/** The text, or undefined for a binary file. */
function decode(bytes: Uint8Array, partial: boolean): string | undefined {
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes.subarray(2), { stream: partial });
  if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes.subarray(2), { stream: partial });
  const head = bytes.subarray(0, 8000);
  if (head.includes(0)) return undefined;
  // `stream` keeps a multi-byte character cut at the end out of the text instead of a U+FFFD.
  return new TextDecoder('utf-8').decode(bytes, { stream: partial });
}

/** The file's text: the editor's buffer when open (unsaved edits count), else at most `maxBytes` from disk. */
export async function readText(uri: vscode.Uri, maxBytes: number): Promise<ReadText | ReadProblem> {
  const open = vscode.workspace.textDocuments.find((d) => sameUri(d.uri, uri));
  if (open) return { text: open.getText() };
  try {
    const stat = await vscode.workspace.fs.stat(uri);
    if (stat.size > maxBytes && uri.scheme === 'file') {
      // Read only the head of a huge local file: never load hundreds of MB to scan 5.
      const handle = await fs.open(uri.fsPath, 'r');
      try {
        const buffer = new Uint8Array(maxBytes);
        const { bytesRead } = await handle.read(buffer, 0, maxBytes, 0);
        const text = decode(buffer.subarray(0, bytesRead), true);
        return text === undefined ? 'binary' : { text, cut: { readBytes: bytesRead, totalBytes: stat.size } };
      } finally {
        await handle.close();
      }
    }
    const bytes = await vscode.workspace.fs.readFile(uri);
    const cut = bytes.length > maxBytes;
    const text = decode(cut ? bytes.subarray(0, maxBytes) : bytes, cut);
    if (text === undefined) return 'binary';
    return cut ? { text, cut: { readBytes: maxBytes, totalBytes: bytes.length } } : { text };
  } catch {
    return 'unreadable';
  }
}
