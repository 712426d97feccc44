/**
 * Single sign-on in AWS: a Cognito user pool federating the organisation's identity provider(s),
 * SAML 2.0 from its metadata and/or OIDC from its issuer, and one app client whose ID tokens the
 * management and log routes accept (its issuer and client id become OIDC_ISSUER and OIDC_AUDIENCE).
 * Only in the app when the deployment switches single sign-on on (lib/sso-config.ts).
 */
import { CfnOutput, Duration, SecretValue, Stack, type StackProps } from 'aws-cdk-lib';
import * as cognito from 'aws-cdk-lib/aws-cognito';
import { NagSuppressions } from 'cdk-nag';
import type { Construct } from 'constructs';
import type { SsoConfig } from './sso-config';

/** What the route functions are given: the values of OIDC_ISSUER and OIDC_AUDIENCE. */
export interface IdTokenIssuer {
  issuer: string;
  audience: string;
}

export interface SsoStackProps extends StackProps {
  readonly config: SsoConfig;
}

export class SsoStack extends Stack {
  readonly userPool: cognito.UserPool;
  readonly client: cognito.UserPoolClient;
  readonly providers: cognito.IUserPoolIdentityProvider[] = [];
  readonly idTokenIssuer: IdTokenIssuer;
  /** The hosted sign-in's address, `https://<prefix>.auth.<region>.amazoncognito.com`. */
  readonly signInDomainUrl: string;
  /** The `<prefix>` of that address (another stack builds it with its own region, needing no export). */
  readonly domainPrefix: string;

  constructor(scope: Construct, id: string, props: SsoStackProps) {
    super(scope, id, { description: 'Workflow service: single sign-on (Cognito user pool)', ...props });
    const { config } = props;

    // People come in through the identity provider only: no sign-up, no passwords of the pool's own.
    this.userPool = new cognito.UserPool(this, 'UserPool', {
      selfSignUpEnabled: false,
      signInAliases: { email: true },
      standardAttributes: { email: { required: true, mutable: true } },
      passwordPolicy: {
        minLength: 12,
        requireLowercase: true,
        requireUppercase: true,
        requireDigits: true,
        requireSymbols: true,
      },
      accountRecovery: cognito.AccountRecovery.NONE,
      featurePlan: cognito.FeaturePlan.ESSENTIALS,
      deletionProtection: true,
    });
    NagSuppressions.addResourceSuppressions(this.userPool, [
      {
        id: 'AwsSolutions-COG2',
        reason:
          'Users sign in only through the federated identity provider (self sign-up is off and the app client ' +
          'allows no password flows), so requiring a second factor is up to the identity provider, not the pool.',
      },
      {
        id: 'AwsSolutions-COG3',
        reason:
          'Threat protection (advanced security) scores sign-ins with passwords of the pool itself, which this pool ' +
          'does not accept; federated sign-ins are risk-checked by the identity provider, and the Plus plan it ' +
          'needs would be paid for nothing.',
      },
    ]);

    this.userPool.addDomain('Domain', { cognitoDomain: { domainPrefix: config.domainPrefix } });

    if (config.saml) {
      this.providers.push(
        new cognito.UserPoolIdentityProviderSaml(this, 'SamlProvider', {
          userPool: this.userPool,
          name: config.saml.name,
          metadata:
            'url' in config.saml.metadata
              ? cognito.UserPoolIdentityProviderSamlMetadata.url(config.saml.metadata.url)
              : cognito.UserPoolIdentityProviderSamlMetadata.file(config.saml.metadata.xml),
          attributeMapping: { email: cognito.ProviderAttribute.other(config.saml.emailAttribute) },
        }),
      );
    }
    if (config.oidc) {
      this.providers.push(
        new cognito.UserPoolIdentityProviderOidc(this, 'OidcProvider', {
          userPool: this.userPool,
          name: config.oidc.name,
          issuerUrl: config.oidc.issuerUrl,
          clientId: config.oidc.clientId,
          // A dynamic reference: CloudFormation reads the secret at deploy time; it is never in the template.
          clientSecret: SecretValue.secretsManager(config.oidc.clientSecretName).unsafeUnwrap(),
          scopes: ['openid', 'email'],
          attributeRequestMethod: cognito.OidcAttributeRequestMethod.GET,
          attributeMapping: { email: cognito.ProviderAttribute.other('email') },
        }),
      );
    }

    this.client = this.userPool.addClient('ServiceClient', {
      generateSecret: false,
      authFlows: {},
      oAuth: {
        flows: { authorizationCodeGrant: true },
        scopes: [cognito.OAuthScope.OPENID, cognito.OAuthScope.EMAIL, cognito.OAuthScope.PROFILE],
        callbackUrls: config.callbackUrls,
        ...(config.logoutUrls.length ? { logoutUrls: config.logoutUrls } : {}),
      },
      supportedIdentityProviders: this.providers.map((provider) =>
        cognito.UserPoolClientIdentityProvider.custom(provider.providerName),
      ),
      idTokenValidity: Duration.hours(1),
      accessTokenValidity: Duration.hours(1),
      preventUserExistenceErrors: true,
    });
    for (const provider of this.providers) this.client.node.addDependency(provider);

    this.domainPrefix = config.domainPrefix;
    this.signInDomainUrl = `https://${config.domainPrefix}.auth.${this.region}.amazoncognito.com`;
    this.idTokenIssuer = {
      // Spelled out, as Cognito writes it in every token's `iss`.
      issuer: `https://cognito-idp.${this.region}.${this.urlSuffix}/${this.userPool.userPoolId}`,
      audience: this.client.userPoolClientId,
    };
    // Exported whether or not a route takes ID tokens, so removing the last one that does never
    // deletes an export the route stacks still import (lib/service-app.ts, stack layout).
    this.exportValue(this.userPool.userPoolId);
    this.exportValue(this.client.userPoolClientId);
    new CfnOutput(this, 'OidcIssuer', {
      value: this.idTokenIssuer.issuer,
      description: 'Issuer of the ID tokens the API accepts (OIDC_ISSUER)',
    });
    new CfnOutput(this, 'OidcAudience', {
      value: this.idTokenIssuer.audience,
      description: 'App client id the ID tokens are issued to (OIDC_AUDIENCE)',
    });
    new CfnOutput(this, 'SignInDomain', {
      value: this.signInDomainUrl,
      description: 'Hosted sign-in (authorize, token) endpoints; also the SAML ACS host',
    });
  }
  /**
   * The UpdateUserPoolClient request that gives the app client `urls` as further callback and
   * logout URLs, every other setting as this stack gives it (the API replaces what it is not given).
   * The site stack sends it for the console's address, which exists only once the distribution does
   * (lib/constructs/console-callback-urls.ts).
   */
  clientUpdateWith(urls: readonly string[]): Record<string, unknown> {
    const client = this.client.node.defaultChild as cognito.CfnUserPoolClient;
    const units = client.tokenValidityUnits as
      | cognito.CfnUserPoolClient.TokenValidityUnitsProperty
      | undefined;
    return {
      UserPoolId: this.userPool.userPoolId,
      ClientId: this.client.userPoolClientId,
      ExplicitAuthFlows: client.explicitAuthFlows,
      AllowedOAuthFlows: client.allowedOAuthFlows,
      AllowedOAuthScopes: client.allowedOAuthScopes,
      AllowedOAuthFlowsUserPoolClient: client.allowedOAuthFlowsUserPoolClient,
      SupportedIdentityProviders: client.supportedIdentityProviders,
      CallbackURLs: [...((client.callbackUrLs as string[] | undefined) ?? []), ...urls],
      LogoutURLs: [...((client.logoutUrLs as string[] | undefined) ?? []), ...urls],
      IdTokenValidity: client.idTokenValidity,
      AccessTokenValidity: client.accessTokenValidity,
      RefreshTokenValidity: client.refreshTokenValidity,
      ...(units
        ? {
            TokenValidityUnits: {
              IdToken: units.idToken,
              AccessToken: units.accessToken,
              RefreshToken: units.refreshToken,
            },
          }
        : {}),
      PreventUserExistenceErrors: client.preventUserExistenceErrors,
      EnableTokenRevocation: client.enableTokenRevocation,
    };
  }
}
