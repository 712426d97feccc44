/**
 * Reading a ZIP archive sent by a user (a Sim workspace or folder export) with fflate, defended:
 * the central directory's entries are counted and their declared sizes and compression ratios
 * checked before anything is inflated, and each entry is inflated into a buffer of its declared
 * size, so an archive that lies about its sizes cannot make more than the limits allow.
 */
import { unzipSync } from 'fflate';
import { PayloadTooLargeError, ValidationError } from '../../core/errors';

export interface ZipLimits {
  /** The archive itself, as sent. */
  maxArchiveBytes: number;
  maxEntries: number;
  maxEntryBytes: number;
  /** All entries together, inflated. */
  maxTotalBytes: number;
  /** Inflated size over compressed size, checked for entries larger than `ratioCheckedFromBytes`. */
  maxCompressionRatio: number;
  ratioCheckedFromBytes: number;
}

/**
 * 4 MB sent: the archive reaches the function base64-encoded inside its event (4/3 of its size),
 * and Lambda takes events up to 6 MB. One workflow inflates to at most the 5 MB a JSON body may
 * have; workflow JSON compresses about 5 to 20 times, so 100 is far past any real export.
 */
export const defaultZipLimits: ZipLimits = {
  maxArchiveBytes: 4 * 1024 * 1024,
  maxEntries: 1000,
  maxEntryBytes: 5 * 1024 * 1024,
  maxTotalBytes: 50 * 1024 * 1024,
  maxCompressionRatio: 100,
  ratioCheckedFromBytes: 64 * 1024,
};

export interface ZipEntry {
  path: string;
  text: string;
}

const megabytes = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB`;

/** The archive's files (folders left out), as UTF-8 text; anything wrong is a 4xx naming the entry or limit. */
export function readZipArchive(bytes: Uint8Array, limits: ZipLimits = defaultZipLimits): ZipEntry[] {
  if (bytes.length > limits.maxArchiveBytes) {
    throw new PayloadTooLargeError(
      `The archive is ${megabytes(bytes.length)}, over the ${megabytes(limits.maxArchiveBytes)} an archive may have: import its workflows in smaller archives or one by one`,
    );
  }
  let entries = 0;
  let totalBytes = 0;
  // fflate inflates each entry right after the filter passes it: a failure is this entry's.
  let current: string | undefined;
  const check = (file: { name: string; size: number; originalSize: number }): boolean => {
    current = file.name;
    entries += 1;
    if (entries > limits.maxEntries) {
      throw new PayloadTooLargeError(
        `The archive has more than ${limits.maxEntries} entries, the most it may have`,
      );
    }
    if (file.originalSize > limits.maxEntryBytes) {
      throw new PayloadTooLargeError(
        `Archive entry ${file.name} inflates to ${megabytes(file.originalSize)}, over the ${megabytes(limits.maxEntryBytes)} an entry may have`,
      );
    }
    totalBytes += file.originalSize;
    if (totalBytes > limits.maxTotalBytes) {
      throw new PayloadTooLargeError(
        `The archive inflates to more than ${megabytes(limits.maxTotalBytes)}, the most its entries may have together`,
      );
    }
    if (
      file.originalSize > limits.ratioCheckedFromBytes &&
      file.originalSize > file.size * limits.maxCompressionRatio
    ) {
      throw new PayloadTooLargeError(
        `Archive entry ${file.name} is compressed ${Math.round(file.originalSize / Math.max(file.size, 1))} to 1, over the ratio of ${limits.maxCompressionRatio} to 1 an entry may have (a ZIP bomb?)`,
      );
    }
    return !file.name.endsWith('/');
  };
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(bytes, { filter: check });
  } catch (error) {
    if (error instanceof PayloadTooLargeError) throw error;
    const reason = (error as Error).message;
    if (current === undefined) {
      throw new ValidationError(
        `The body is not a readable ZIP archive: ${reason}`,
        [{ path: '(archive)', message: 'Not a readable ZIP archive' }],
        { cause: error },
      );
    }
    throw new ValidationError(
      `Archive entry ${current} cannot be read: ${reason}`,
      [{ path: current, message: `Cannot be read: ${reason}` }],
      { cause: error },
    );
  }
  const decoder = new TextDecoder('utf-8', { fatal: true });
  return Object.entries(files).map(([path, content]) => {
    try {
      return { path, text: decoder.decode(content) };
    } catch (error) {
      throw new ValidationError(
        `Archive entry ${path} is not UTF-8 text`,
        [{ path, message: 'Not UTF-8 text' }],
        { cause: error },
      );
    }
  });
}
