/**
 * Imported for its effect by every infra test file that makes a CDK App: the file's Apps write
 * their cloud assemblies into one folder (CDK_OUTDIR), removed when the file's tests are done.
 * Without it each App makes a `cdk.out*` folder of the system temp dir and leaves it there. An App
 * made while CDK_OUTDIR is set synthesizes itself again when the process is about to exit, after
 * this folder is gone, unless it is made with `autoSynth: false`, as every test's App is.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

const assemblyDir = mkdtempSync(join(tmpdir(), 'infra-cdk-out-'));
process.env.CDK_OUTDIR = assemblyDir;

afterAll(() => {
  rmSync(assemblyDir, { recursive: true, force: true });
  delete process.env.CDK_OUTDIR;
});
