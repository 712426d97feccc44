/** Chosen files in the interface's base64 shape, `{name, type, base64}`. */
export interface FileValue {
  name: string;
  type: string;
  base64: string;
}

export function filesOf(list: FileList | null): File[] {
  return list ? Array.from(list) : [];
}

export function readFiles(files: File[]): Promise<FileValue[]> {
  return Promise.all(files.map(readFile));
}

function readFile(file: File): Promise<FileValue> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onerror = () => reject(reader.error ?? new Error(`Could not read ${file.name}`));
    reader.onload = () => {
      // A data URL: `data:<type>;base64,<data>`; the type is sent on its own.
      const url = String(reader.result);
      resolve({
        name: file.name,
        type: file.type || 'application/octet-stream',
        base64: url.slice(url.indexOf(',') + 1),
      });
    };
    reader.readAsDataURL(file);
  });
}
