/**
 * The rules of a form's settings that both the management API and the page's server side apply:
 * what an identifier may be, and which e-mail addresses an address list admits.
 */

/** Lowercase letters, digits and inner hyphens: safe in a URL path as is, and never a dot (assets have one). */
export const formIdentifierPattern = /^[a-z0-9](?:[a-z0-9-]{0,98}[a-z0-9])?$/;
export const maxFormIdentifierLength = 100;

export function isFormIdentifier(value: string): boolean {
  return formIdentifierPattern.test(value);
}

/** A practical address shape: something, one `@`, a domain with a dot; no spaces. */
const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const domainPattern = /^@[^\s@]+\.[^\s@]+$/;

export function isEmailAddress(value: string): boolean {
  return value.length <= 254 && emailPattern.test(value);
}

/** An address-list entry: an exact address or `@domain`. */
export function isAllowedEmailEntry(value: string): boolean {
  return isEmailAddress(value) || (value.length <= 254 && domainPattern.test(value));
}

/** Addresses compare without case: mail systems treat `Ada@X.com` and `ada@x.com` as one. */
export function normalizeEmail(value: string): string {
  return value.trim().toLowerCase();
}

/**
 * Whether the list admits the address: an exact entry, or `@domain` for an address whose domain is
 * exactly that one (`@x.com` admits `a@x.com`, not `a@evil-x.com` nor `a@sub.x.com`).
 */
export function emailAllowed(allowedEmails: readonly string[], email: string): boolean {
  const address = normalizeEmail(email);
  if (!isEmailAddress(address)) return false;
  const domain = address.slice(address.lastIndexOf('@'));
  return allowedEmails.some((entry) => {
    const allowed = normalizeEmail(entry);
    return allowed.startsWith('@') ? allowed === domain : allowed === address;
  });
}
