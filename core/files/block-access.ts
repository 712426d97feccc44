/** What the File block (and any block that takes files) reaches files through, within its run's workspace. */
import type { FileSource } from './inputs';
import { type FileDeps, loadFile, storeFile } from './service';
import type { DocumentReader, DocumentReading, FileContent, FileObject, FileScope } from './types';

export interface FileAccess {
  load(source: FileSource, path: string, scope: FileScope): Promise<FileContent & { stored?: FileObject }>;
  store(content: FileContent, scope: FileScope): Promise<FileObject>;
  read(content: FileContent): Promise<DocumentReading>;
}

export function fileAccess(deps: FileDeps, reader: DocumentReader): FileAccess {
  return {
    load: (source, path, scope) => loadFile(deps, scope.workspaceId, source, path),
    store: (content, scope) => storeFile(deps, scope, content),
    read: (content) => reader.read(content),
  };
}
