/**
 * The File block: takes uploaded files, URLs and files from other blocks (`files`: a reference,
 * file object(s) or URLs), detects each one's type, extracts the text of documents, and outputs
 * `files` (file objects with presigned URLs; `base64` up to 1 MB) and `combinedContent`.
 */
import { ServiceError } from '../../errors';
import { fileSourcesOf } from '../../files/inputs';
import { maxInlineBase64Bytes } from '../../files/types';
import { BlockError, type BlockDefinition } from './types';

export const fileBlock: BlockDefinition = {
  type: 'file',
  async execute(inputs, run) {
    const files = run.deps.files;
    if (!files) throw new BlockError('File blocks need a file store, and none is configured');
    const given = inputs.files ?? inputs.file ?? inputs.url;
    if (
      given === undefined ||
      given === null ||
      given === '' ||
      (Array.isArray(given) && given.length === 0)
    ) {
      throw new BlockError(
        `File block "${run.block.name}" has no files: set files to a reference, file objects or URLs`,
      );
    }
    const scope = { workspaceId: run.context.workspaceId, executionId: run.context.executionId };
    try {
      const read = await Promise.all(
        fileSourcesOf(given, 'files').map(async (source, index) => {
          const content = await files.load(source, `files[${index}]`, scope);
          const reading = await files.read(content);
          const stored =
            content.stored && content.stored.type === reading.type
              ? content.stored
              : await files.store({ ...content, type: reading.type }, scope);
          const small = content.bytes.length <= maxInlineBase64Bytes;
          return {
            file: small ? { ...stored, base64: Buffer.from(content.bytes).toString('base64') } : stored,
            text: reading.text,
          };
        }),
      );
      return {
        output: {
          files: read.map((entry) => entry.file),
          combinedContent: read
            .map((entry) => entry.text)
            .filter((text): text is string => text !== undefined && text !== '')
            .join('\n\n'),
        },
      };
    } catch (error) {
      // Input mistakes (a bad shape, a refused URL, a missing file) are the workflow's to fix.
      if (error instanceof ServiceError && error.statusCode < 500)
        throw new BlockError(`File block "${run.block.name}": ${error.message}`);
      throw error;
    }
  },
};
