/**
 * Type detection and text extraction, with well-kept parsers: file-type (content), unpdf (PDF.js),
 * mammoth (DOCX), exceljs (XLSX), csv-parse (CSV), html-to-text (HTML). Pure functions of the
 * bytes, so they run the same on the caller's thread or in a worker (extract-worker.ts).
 */
import type { DocumentReading } from '../../core/files/types';

export const mime = {
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  csv: 'text/csv',
  text: 'text/plain',
  markdown: 'text/markdown',
  json: 'application/json',
  html: 'text/html',
  octetStream: 'application/octet-stream',
} as const;

const byExtension: Record<string, string> = {
  pdf: mime.pdf,
  docx: mime.docx,
  xlsx: mime.xlsx,
  csv: mime.csv,
  txt: mime.text,
  text: mime.text,
  log: mime.text,
  md: mime.markdown,
  markdown: mime.markdown,
  json: mime.json,
  html: mime.html,
  htm: mime.html,
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  mp4: 'video/mp4',
  zip: 'application/zip',
};

function extensionType(name: string): string | undefined {
  const match = name.toLowerCase().match(/\.([a-z0-9]+)$/);
  return match ? byExtension[match[1] as string] : undefined;
}

/**
 * Content first (magic numbers: PDF, Office zips, images...), then the file name's extension, then
 * what the sender declared. Text formats have no magic number, so they come from the name or type.
 */
export async function detectType(bytes: Uint8Array, name: string, declared: string): Promise<string> {
  const { fileTypeFromBuffer } = await import('file-type');
  const sniffed = await fileTypeFromBuffer(bytes);
  const fromName = extensionType(name);
  if (sniffed && !(sniffed.mime === 'application/zip' && fromName)) return sniffed.mime;
  if (fromName) return fromName;
  const given = declared.split(';')[0]?.trim().toLowerCase();
  if (given && given !== mime.octetStream) return given;
  return looksLikeText(bytes) ? mime.text : mime.octetStream;
}

function looksLikeText(bytes: Uint8Array): boolean {
  const sample = bytes.subarray(0, 4096);
  return !sample.includes(0) && Buffer.from(sample).toString('utf8').includes('\uFFFD') === false;
}

const utf8 = (bytes: Uint8Array) =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');

async function pdfText(bytes: Uint8Array): Promise<string> {
  const { extractText, getDocumentProxy } = await import('unpdf');
  // PDF.js takes the buffer over: it gets a copy.
  const document = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0 });
  const { text } = await extractText(document, { mergePages: false });
  await document.destroy();
  return (text as string[]).map((page) => page.trim()).join('\n\n');
}

async function docxText(bytes: Uint8Array): Promise<string> {
  const mammoth = (await import('mammoth')).default;
  const { value } = await mammoth.extractRawText({ buffer: Buffer.from(bytes) });
  return value.trim();
}

async function xlsxText(bytes: Uint8Array): Promise<string> {
  const ExcelJS = (await import('exceljs')).default;
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(Buffer.from(bytes) as unknown as ArrayBuffer);
  return workbook.worksheets
    .map((sheet) => {
      const rows: string[] = [];
      sheet.eachRow((row) => {
        const values = (row.values as unknown[]).slice(1).map(cellText);
        rows.push(values.join(', '));
      });
      return `${sheet.name}\n${rows.join('\n')}`;
    })
    .join('\n\n');
}

function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object') {
    const cell = value as { text?: unknown; result?: unknown; richText?: Array<{ text: string }> };
    if (cell.richText) return cell.richText.map((part) => part.text).join('');
    if (cell.result !== undefined) return cellText(cell.result);
    if (cell.text !== undefined) return String(cell.text);
    return JSON.stringify(value);
  }
  return String(value);
}

async function csvText(bytes: Uint8Array): Promise<string> {
  const { parse } = await import('csv-parse/sync');
  const rows = parse(utf8(bytes), {
    relax_column_count: true,
    bom: true,
    skip_empty_lines: true,
  }) as string[][];
  return rows.map((row) => row.join(', ')).join('\n');
}

async function htmlText(bytes: Uint8Array): Promise<string> {
  const { convert } = await import('html-to-text');
  return convert(utf8(bytes), { wordwrap: false }).trim();
}

function jsonText(bytes: Uint8Array): string {
  const text = utf8(bytes);
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** The text of a document of `type`; undefined for types that are not documents. */
export async function extractText(bytes: Uint8Array, type: string): Promise<string | undefined> {
  switch (type) {
    case mime.pdf:
      return pdfText(bytes);
    case mime.docx:
      return docxText(bytes);
    case mime.xlsx:
      return xlsxText(bytes);
    case mime.csv:
      return csvText(bytes);
    case mime.html:
      return htmlText(bytes);
    case mime.json:
      return jsonText(bytes);
    default:
      return type.startsWith('text/') ? utf8(bytes) : undefined;
  }
}

/** Detects the type and extracts the text; a document that cannot be parsed is an error naming it. */
export async function readDocument(
  bytes: Uint8Array,
  name: string,
  declared: string,
): Promise<DocumentReading> {
  const type = await detectType(bytes, name, declared);
  try {
    const text = await extractText(bytes, type);
    return text === undefined ? { type } : { type, text };
  } catch (error) {
    throw new DocumentParseError(`Could not read "${name}" as ${type}: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

export class DocumentParseError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DocumentParseError';
  }
}
