/**
 * Single sign-on settings of a deployment, from CDK context (`-c name=value`, or cdk.json's
 * `context`). Without `ssoEnabled` the app has no user pool and the routes take API keys only.
 */
import { readFileSync } from 'node:fs';
import type { Node } from 'constructs';

/** The context names, in one place: docs/sso.md lists them for operators. */
export const ssoContext = {
  enabled: 'ssoEnabled',
  domainPrefix: 'ssoDomainPrefix',
  callbackUrls: 'ssoCallbackUrls',
  logoutUrls: 'ssoLogoutUrls',
  samlName: 'ssoSamlName',
  samlMetadataUrl: 'ssoSamlMetadataUrl',
  samlMetadataFile: 'ssoSamlMetadataFile',
  samlEmailAttribute: 'ssoSamlEmailAttribute',
  oidcName: 'ssoOidcName',
  oidcIssuer: 'ssoOidcIssuer',
  oidcClientId: 'ssoOidcClientId',
  oidcClientSecretName: 'ssoOidcClientSecretName',
} as const;

/** The claim most SAML identity providers put the e-mail address in. */
export const defaultSamlEmailAttribute = 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress';

export interface SamlProviderConfig {
  name: string;
  /** The identity provider's metadata: where to fetch it, or the XML itself (read from a file at synth). */
  metadata: { url: string } | { xml: string };
  emailAttribute: string;
}

export interface OidcProviderConfig {
  name: string;
  issuerUrl: string;
  clientId: string;
  /** Secrets Manager secret (name or ARN) holding the client secret; resolved at deploy time. */
  clientSecretName: string;
}

export interface SsoConfig {
  /** Prefix of the user pool's sign-in domain (`<prefix>.auth.<region>.amazoncognito.com`). */
  domainPrefix: string;
  callbackUrls: string[];
  logoutUrls: string[];
  saml?: SamlProviderConfig;
  oidc?: OidcProviderConfig;
}

export class SsoConfigError extends Error {}

/** Undefined when single sign-on is off; a clear error naming the context value that is missing. */
export function ssoConfigOf(node: Node): SsoConfig | undefined {
  const value = (name: string): string | undefined => {
    const raw = node.tryGetContext(name);
    return raw === undefined || raw === null || String(raw).trim() === '' ? undefined : String(raw).trim();
  };
  const required = (name: string, why: string): string => {
    const found = value(name);
    if (!found)
      throw new SsoConfigError(`${ssoContext.enabled} is set: context ${name} is required (${why})`);
    return found;
  };
  const list = (name: string) =>
    (value(name) ?? '')
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean);

  if (!['true', '1', 'yes', 'on'].includes((value(ssoContext.enabled) ?? '').toLowerCase())) return undefined;

  const samlMetadataUrl = value(ssoContext.samlMetadataUrl);
  const samlMetadataFile = value(ssoContext.samlMetadataFile);
  if (samlMetadataUrl && samlMetadataFile) {
    throw new SsoConfigError(
      `Give the SAML metadata once: ${ssoContext.samlMetadataUrl} or ${ssoContext.samlMetadataFile}, not both`,
    );
  }
  const saml: SamlProviderConfig | undefined =
    samlMetadataUrl || samlMetadataFile
      ? {
          name: value(ssoContext.samlName) ?? 'Saml',
          metadata: samlMetadataUrl
            ? { url: samlMetadataUrl }
            : { xml: readMetadataFile(samlMetadataFile as string) },
          emailAttribute: value(ssoContext.samlEmailAttribute) ?? defaultSamlEmailAttribute,
        }
      : undefined;

  const oidcIssuer = value(ssoContext.oidcIssuer);
  const oidc: OidcProviderConfig | undefined = oidcIssuer
    ? {
        name: value(ssoContext.oidcName) ?? 'Oidc',
        issuerUrl: oidcIssuer,
        clientId: required(ssoContext.oidcClientId, "the OIDC provider's client id for the user pool"),
        clientSecretName: required(
          ssoContext.oidcClientSecretName,
          'the Secrets Manager secret holding that client secret',
        ),
      }
    : undefined;

  if (!saml && !oidc) {
    throw new SsoConfigError(
      `${ssoContext.enabled} is set but no identity provider is: give ${ssoContext.samlMetadataUrl} or ` +
        `${ssoContext.samlMetadataFile} (SAML 2.0), or ${ssoContext.oidcIssuer} (OIDC), or both`,
    );
  }
  if (saml && oidc && saml.name === oidc.name) {
    throw new SsoConfigError(`${ssoContext.samlName} and ${ssoContext.oidcName} must differ`);
  }
  const callbackUrls = list(ssoContext.callbackUrls);
  if (callbackUrls.length === 0) {
    required(ssoContext.callbackUrls, 'comma-separated URLs the sign-in may return to with its code');
  }
  return {
    domainPrefix: required(ssoContext.domainPrefix, 'the prefix of the sign-in domain'),
    callbackUrls,
    logoutUrls: list(ssoContext.logoutUrls),
    ...(saml ? { saml } : {}),
    ...(oidc ? { oidc } : {}),
  };
}

function readMetadataFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new SsoConfigError(`${ssoContext.samlMetadataFile}: cannot read ${path}`, { cause: error });
  }
}
