/** The `workerData.role` a document worker is started with (a module of its own: cheap to import). */
export const documentWorkerRole = 'document-reader';
