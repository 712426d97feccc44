import { describe, expect, it } from 'vitest';
import { emailAllowed, isAllowedEmailEntry, isFormIdentifier } from '../../../core/forms/rules';

describe('isFormIdentifier', () => {
  it('accepts lowercase letters, digits and inner hyphens up to 100 characters', () => {
    for (const identifier of ['a', 'contact', 'contact-us-2', '0', 'a'.repeat(100)]) {
      expect(isFormIdentifier(identifier), identifier).toBe(true);
    }
  });

  it('refuses capitals, dots, spaces, slashes, outer hyphens, empty and 101 characters', () => {
    for (const identifier of [
      'Contact',
      'con.tact',
      'con tact',
      'a/b',
      '-a',
      'a-',
      '',
      'a'.repeat(101),
      'é',
    ]) {
      expect(isFormIdentifier(identifier), identifier).toBe(false);
    }
  });
});

describe('isAllowedEmailEntry', () => {
  it('accepts an address or an @domain pattern and nothing else', () => {
    expect(isAllowedEmailEntry('ada@x.com')).toBe(true);
    expect(isAllowedEmailEntry('@x.com')).toBe(true);
    for (const entry of ['@', 'x.com', '@x', 'a b@x.com', 'ada@', ''])
      expect(isAllowedEmailEntry(entry), entry).toBe(false);
  });
});

describe('emailAllowed', () => {
  const list = ['ada@lovelace.example', '@Babbage.example'];

  it('admits an exact address, ignoring case and surrounding spaces', () => {
    expect(emailAllowed(list, 'ada@lovelace.example')).toBe(true);
    expect(emailAllowed(list, ' ADA@Lovelace.example ')).toBe(true);
  });

  it('admits any address of a listed domain', () => {
    expect(emailAllowed(list, 'charles@babbage.example')).toBe(true);
  });

  it('refuses subdomains, look-alike domains, other addresses and malformed input', () => {
    for (const email of [
      'eve@sub.babbage.example',
      'eve@evilbabbage.example',
      'eve@lovelace.example',
      'ada@lovelace.example.evil',
      'babbage.example',
      '@babbage.example',
      '',
    ]) {
      expect(emailAllowed(list, email), email).toBe(false);
    }
  });
});
