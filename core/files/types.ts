/** Files as blocks, inputs, outputs and the log see them. */

/**
 * A file the service keeps: the interface's file object (`name`, `url`, `base64?`, `type`, `size`)
 * plus `id` and `key`, which let later blocks and the log find it again. The key is unguessable and
 * only the service reads by it, always within the file's own workspace.
 */
export interface FileObject {
  id: string;
  name: string;
  /** A presigned GET URL, valid for the configured time (1 hour by default). */
  url: string;
  /** MIME type. */
  type: string;
  /** Bytes. */
  size: number;
  key: string;
  base64?: string;
}

/** A file's bytes with what is known of it, before it is stored. */
export interface FileContent {
  name: string;
  type: string;
  bytes: Uint8Array;
}

/** Where a run's files are kept: under its workspace and execution. */
export interface FileScope {
  workspaceId: string;
  executionId: string;
}

/** 20 MB: the most one file may hold, however it arrives. */
export const maxFileBytes = 20 * 1024 * 1024;

/** Files up to this size carry `base64` in the File block's output; larger ones only their URL. */
export const maxInlineBase64Bytes = 1024 * 1024;

export function isFileObject(value: unknown): value is FileObject {
  if (typeof value !== 'object' || value === null) return false;
  const file = value as Record<string, unknown>;
  return (
    typeof file.id === 'string' &&
    typeof file.key === 'string' &&
    file.key.startsWith('files/') &&
    typeof file.name === 'string' &&
    typeof file.url === 'string' &&
    typeof file.size === 'number'
  );
}

/** What a document reader found in a file: its type, from content first, and its text if it is a document. */
export interface DocumentReading {
  type: string;
  /** Extracted text; absent for binary files that are not documents. */
  text?: string;
}

/**
 * Port: detects a file's type (content, then extension, then the declared type) and extracts the
 * text of PDF, CSV, DOCX, XLSX, plain text, Markdown, JSON and HTML.
 */
export interface DocumentReader {
  read(content: FileContent): Promise<DocumentReading>;
}
