import { PDFDocument, StandardFonts } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { createDocumentReader } from '../../../adapters/files/document-reader';
import { BlockError } from '../../../core/engine/blocks/types';

async function pdf(text: string): Promise<Uint8Array> {
  const document = await PDFDocument.create();
  const font = await document.embedFont(StandardFonts.Helvetica);
  document.addPage().drawText(text, { x: 40, y: 700, font, size: 12 });
  return document.save();
}

describe('createDocumentReader', () => {
  it('reads the same on the caller thread and in a worker', async () => {
    // Prepare
    const content = { name: 'x.pdf', type: 'application/octet-stream', bytes: await pdf('Same either way') };
    const onThread = createDocumentReader({ workerAboveBytes: Number.POSITIVE_INFINITY });
    const inWorker = createDocumentReader({ workerAboveBytes: 0 });

    // Act
    const [a, b] = await Promise.all([onThread.read(content), inWorker.read(content)]);

    // Assess
    expect(a).toEqual({ type: 'application/pdf', text: 'Same either way' });
    expect(b).toEqual(a);
  });

  it('fails with a BlockError naming the file for a document that does not parse, on either path', async () => {
    // Prepare
    const broken = {
      name: 'broken.pdf',
      type: 'application/pdf',
      bytes: new Uint8Array(Buffer.from('%PDF-1.7 not really')),
    };

    // Act
    const onThread = createDocumentReader({ workerAboveBytes: Number.POSITIVE_INFINITY }).read(broken);
    const inWorker = createDocumentReader({ workerAboveBytes: 0 }).read(broken);

    // Assess
    await expect(onThread).rejects.toBeInstanceOf(BlockError);
    await expect(onThread).rejects.toThrow(/broken\.pdf/);
    await expect(inWorker).rejects.toBeInstanceOf(BlockError);
    await expect(inWorker).rejects.toThrow(/broken\.pdf/);
  });

  it('gives a binary file its type and no text', async () => {
    // Prepare
    const png = new Uint8Array([
      0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52,
    ]);

    // Act
    const reading = await createDocumentReader().read({
      name: 'image',
      type: 'application/octet-stream',
      bytes: png,
    });

    // Assess
    expect(reading).toEqual({ type: 'image/png' });
  });
});
