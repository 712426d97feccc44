/**
 * Files on the embedded stack: the time to ingest (store in S3) and parse a 5 MB PDF and a 10 MB CSV
 * through the File block's path (load by key, detect, extract in a worker). The baseline, measured
 * in the same run, is the S3 put of the same bytes alone.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { createDocumentReader } from '../adapters/files/document-reader';
import { createS3BlobStore } from '../adapters/s3/blob-store';
import { buckets } from '../catalog/resources';
import { fileAccess } from '../core/files/block-access';
import { type FileDeps, storeFile } from '../core/files/service';
import { applyEnv, startLocalEmulators } from '../local/emulators';
import { percentile } from './load';

export interface FileFigures {
  bytes: number;
  textChars: number;
  ingestP50InMs: number;
  parseP50InMs: number;
  totalP50InMs: number;
  /** S3 put of the same bytes alone. */
  baselinePutP50InMs: number;
  ratio: number;
}

export interface FilesBench {
  rounds: number;
  pdf: FileFigures;
  csv: FileFigures;
}

async function pdfOf(targetBytes: number): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  const line = 'The quarterly figures show steady growth across every region and product line.';
  let estimate = 0;
  for (let page = 0; estimate < targetBytes; page++) {
    const sheet = pdf.addPage();
    for (let row = 0; row < 60; row++)
      sheet.drawText(`${page}.${row} ${line}`, { x: 30, y: 780 - row * 12, font, size: 9 });
    // A page of 60 lines is about 3 KB in the saved file.
    estimate += 3_000;
  }
  return pdf.save({ useObjectStreams: false });
}

function csvOf(targetBytes: number): Uint8Array {
  const rows = ['id,customer,region,amount,currency,date'];
  let size = rows[0]?.length ?? 0;
  for (let i = 0; size < targetBytes; i++) {
    const row = `${i},Customer ${i % 977},region-${i % 12},${(i * 37) % 10_000}.${i % 100},EUR,2026-11-${String((i % 28) + 1).padStart(2, '0')}`;
    rows.push(row);
    size += row.length + 1;
  }
  return new Uint8Array(Buffer.from(rows.join('\n')));
}

async function measure(
  deps: FileDeps,
  name: string,
  type: string,
  bytes: Uint8Array,
  rounds: number,
): Promise<FileFigures> {
  const access = fileAccess(deps, createDocumentReader());
  const scope = { workspaceId: 'ws_bench', executionId: 'exe_bench' };
  const ingest: number[] = [];
  const parse: number[] = [];
  const total: number[] = [];
  const puts: number[] = [];
  let textChars = 0;
  for (let round = 0; round < rounds + 1; round++) {
    const putStarted = performance.now();
    await deps.blobs.putBytes(`bench/${round}/${name}`, bytes, type);
    const putTime = performance.now() - putStarted;
    const started = performance.now();
    const stored = await storeFile(deps, scope, { name, type, bytes });
    const ingested = performance.now();
    const content = await access.load({ kind: 'stored', file: stored }, 'files[0]', scope);
    const reading = await access.read(content);
    const done = performance.now();
    textChars = reading.text?.length ?? 0;
    // The first round warms the parsers and the worker's module load; it is not counted.
    if (round === 0) continue;
    puts.push(putTime);
    ingest.push(ingested - started);
    parse.push(done - ingested);
    total.push(done - started);
  }
  const p50 = (values: number[]) =>
    Number(
      percentile(
        [...values].sort((a, b) => a - b),
        0.5,
      ).toFixed(1),
    );
  return {
    bytes: bytes.length,
    textChars,
    ingestP50InMs: p50(ingest),
    parseP50InMs: p50(parse),
    totalP50InMs: p50(total),
    baselinePutP50InMs: p50(puts),
    ratio: Number((p50(total) / p50(puts)).toFixed(1)),
  };
}

export async function benchFiles(rounds = Number(process.env.BENCH_FILE_ROUNDS ?? 5)): Promise<FilesBench> {
  const dataDir = await mkdtemp(join(tmpdir(), 'bench-files-'));
  const stack = await startLocalEmulators({ dataDir });
  try {
    applyEnv(stack.env);
    const deps: FileDeps = {
      blobs: createS3BlobStore(stack.env[buckets.files.envVar] as string),
      http: {
        request: async () => {
          throw new Error('The files bench fetches nothing');
        },
      },
      urlExpiryInSeconds: 3600,
    };
    const pdf = await pdfOf(5 * 1024 * 1024);
    const csv = csvOf(10 * 1024 * 1024);
    return {
      rounds,
      pdf: await measure(deps, 'report.pdf', 'application/pdf', pdf, rounds),
      csv: await measure(deps, 'orders.csv', 'text/csv', csv, rounds),
    };
  } finally {
    await stack.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

export function printFilesBench(bench: FilesBench): void {
  console.log(
    `\nFiles on the embedded stack: ingest (S3 put) then load, detect and parse in a worker, p50 of ${bench.rounds}`,
  );
  for (const [label, figures] of [
    ['PDF', bench.pdf],
    ['CSV', bench.csv],
  ] as const) {
    console.log(
      `  ${label} ${(figures.bytes / 1024 / 1024).toFixed(1)} MB: ingest ${figures.ingestP50InMs} ms, parse ${figures.parseP50InMs} ms, ` +
        `total ${figures.totalP50InMs} ms (${figures.ratio}× the S3 put alone, ${figures.baselinePutP50InMs} ms); ${figures.textChars} characters of text`,
    );
  }
}
