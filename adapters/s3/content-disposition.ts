/**
 * `Content-Disposition: attachment` with a file name (RFC 6266): `filename` in plain ASCII for old
 * clients, `filename*` in UTF-8 percent-encoding (RFC 8187) for the rest.
 */
export function attachmentDisposition(name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\%]/g, '_') || 'file';
  const encoded = encodeURIComponent(name || 'file').replace(
    /['()*]/g,
    (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}
