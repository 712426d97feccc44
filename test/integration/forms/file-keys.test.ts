/**
 * A public form takes files from anyone with its link: a file object whose key walks out of the
 * form's workspace is refused like any other bad input, and the run never starts.
 */
import { describe, expect, it } from 'vitest';
import { everyFieldGraph, formOf, submit, workflowOf } from '../../support/forms';
import { useLocalService } from '../../support/service';

const service = useLocalService();

describe('form submissions with file objects', () => {
  it('refuses a file object whose key climbs into another workspace with a 400 naming the field', async () => {
    // Prepare
    const owner = await service.get().newTenant('form-files-owner');
    const visitorForm = await service.get().newTenant('form-files-form');
    const form = await formOf(visitorForm, await workflowOf(visitorForm, everyFieldGraph()));
    const upload = await owner.call('POST', '/api/files/upload-url', {
      workspaceId: owner.workspaceId,
      name: 'secret.txt',
      type: 'text/plain',
      size: 6,
    });
    const { file, uploadUrl } = upload.body.data;
    await fetch(uploadUrl, { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: 'secret' });
    const forged = {
      ...file,
      key: `files/${visitorForm.workspaceId}/../${file.key.slice('files/'.length)}`,
    };

    // Act
    const answer = await submit(service.get().url, form.identifier, {
      formData: { name: 'Ada', attachments: [forged] },
    });

    // Assess
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe('VALIDATION_ERROR');
    expect(answer.body.details[0].path).toMatch(/attachments\[0\]$/);
    expect(JSON.stringify(answer.body)).not.toContain('secret');
  });
});
