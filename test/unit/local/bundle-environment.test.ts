/**
 * The environment a function gets in bundle mode (local/bundles/environment.ts): the template's
 * variables, CloudFormation references resolved to local values by name, nothing else of the host.
 */
import { describe, expect, it } from 'vitest';
import { functionEnvironment, TemplateEnvironmentError } from '../../../local/bundles/environment';

const importValue = (name: string) => ({ 'Fn::ImportValue': `WorkflowData:ExportsOutputRef${name}` });

describe('functionEnvironment', () => {
  it('gives literals as they are and references the local value of the same variable', () => {
    // Prepare
    const template = { NODE_OPTIONS: '--enable-source-maps', ENTITIES_TABLE: importValue('EntitiesTable') };

    // Act
    const environment = functionEnvironment({
      functionId: 'getWorkflow',
      template,
      localValues: { ENTITIES_TABLE: 'entities', FILES_BUCKET: 'files' },
      runtime: { AWS_REGION: 'us-east-1' },
      settings: {},
    });

    // Assess
    expect(environment).toEqual({
      NODE_OPTIONS: '--enable-source-maps',
      ENTITIES_TABLE: 'entities',
      AWS_REGION: 'us-east-1',
    });
  });

  it('leaves out a variable the template does not set, though the local emulators have it', () => {
    // Act
    const environment = functionEnvironment({
      functionId: 'createWorkflow',
      template: {},
      localValues: { FILES_BUCKET: 'files' },
      runtime: {},
      settings: { FILES_BUCKET: 'files', HOME: '/home/someone' },
    });

    // Assess
    expect(environment).toEqual({});
  });

  it("passes on the operator's settings that the server's environment has", () => {
    // Act
    const environment = functionEnvironment({
      functionId: 'executeWorkflow',
      template: {},
      localValues: {},
      runtime: {},
      settings: { SYNC_BUDGET_MS: '5000', RATE_LIMITS_JSON: '{}', UNRELATED: 'x' },
    });

    // Assess
    expect(environment).toEqual({ SYNC_BUDGET_MS: '5000', RATE_LIMITS_JSON: '{}' });
  });

  it('refuses a reference the local emulators have no value for, naming the variable and the function', () => {
    // Act
    const refuse = () =>
      functionEnvironment({
        functionId: 'listLogs',
        template: { SOME_NEW_TOPIC_ARN: { Ref: 'SomeNewTopic' } },
        localValues: {},
        runtime: {},
        settings: {},
      });

    // Assess
    expect(refuse).toThrow(TemplateEnvironmentError);
    expect(refuse).toThrow(/listLogs: the template sets SOME_NEW_TOPIC_ARN from \{"Ref":"SomeNewTopic"\}/);
  });
});
