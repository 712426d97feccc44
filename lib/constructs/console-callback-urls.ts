/**
 * Adds the console's address (`https://<distribution domain>/console/`) to the SSO app client's
 * callback and logout URLs. The address exists only once the distribution does, and the
 * distribution depends on the API, whose functions take the client's id: the SSO stack cannot name
 * it without a cycle between stacks, so the site stack updates the client once the distribution is
 * there (an UpdateUserPoolClient call; every other setting as the SSO stack gives it, and on
 * delete the client goes back to the SSO stack's URLs). The request carries all of the client's
 * settings, so any change of them in the SSO stack, deployed before this one, sends it again.
 */
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import { RemovalPolicy } from 'aws-cdk-lib';
import * as cr from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import type { SsoStack } from '../sso-stack';

export interface ConsoleCallbackUrlsProps {
  sso: SsoStack;
  /** The console's address, which the hosted UI returns to after sign-in and after sign-out. */
  consoleUrl: string;
}

export class ConsoleCallbackUrls extends Construct {
  readonly resource: cr.AwsCustomResource;

  constructor(scope: Construct, id: string, props: ConsoleCallbackUrlsProps) {
    super(scope, id);
    const { sso } = props;
    const call = (urls: readonly string[]): cr.AwsSdkCall => ({
      service: 'CognitoIdentityProvider',
      action: 'UpdateUserPoolClient',
      parameters: sso.clientUpdateWith(urls),
      physicalResourceId: cr.PhysicalResourceId.of(`console-callback-${sso.client.userPoolClientId}`),
    });
    this.resource = new cr.AwsCustomResource(this, 'Update', {
      onCreate: call([props.consoleUrl]),
      onUpdate: call([props.consoleUrl]),
      onDelete: call([]),
      policy: cr.AwsCustomResourcePolicy.fromStatements([
        new iam.PolicyStatement({
          actions: ['cognito-idp:UpdateUserPoolClient'],
          resources: [sso.userPool.userPoolArn],
        }),
      ]),
      // The SDK of the Lambda runtime: nothing is downloaded while the stack deploys.
      installLatestAwsSdk: false,
      logGroup: new logs.LogGroup(this, 'Logs', {
        retention: logs.RetentionDays.THREE_MONTHS,
        removalPolicy: RemovalPolicy.DESTROY,
      }),
    });
  }
}
