/**
 * The CDK app (cdk.json runs it with tsx). Synthesizes without AWS credentials: every stack is
 * environment-agnostic. cdk-nag's AwsSolutions checks run on every synth (see lib/service-app.ts).
 */
import { App } from 'aws-cdk-lib';
import { createServiceApp } from '../lib/service-app';

const app = new App();
createServiceApp(app);
app.synth();
