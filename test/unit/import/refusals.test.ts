import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../core/errors';
import { convertWorkflowFile, readWorkflowFile, UnsupportedWorkflowError } from '../../../core/import';
import { fixtureText, importFixture, noChildren } from './support';

function refusalOf(action: () => unknown): UnsupportedWorkflowError {
  try {
    action();
  } catch (error) {
    if (error instanceof UnsupportedWorkflowError) return error;
    throw error;
  }
  throw new Error('The import was not refused');
}

describe('convertWorkflowFile refusals', () => {
  it('lists every block that cannot run here, by id, name, type and reason', () => {
    const error = refusalOf(() => importFixture('unsupported.json'));

    expect(error.statusCode).toBe(422);
    expect(error.code).toBe('UNSUPPORTED_WORKFLOW');
    expect(error.blocks.map(({ id, name, type }) => ({ id, name, type }))).toEqual([
      { id: 'slack', name: 'Post To Slack', type: 'slack' },
      { id: 'py', name: 'Python Step', type: 'function' },
      { id: 'agent', name: 'Tool Agent', type: 'agent' },
      { id: 'eval', name: 'Judge', type: 'evaluator' },
      { id: 'reply', name: 'Reply', type: 'response' },
      { id: 'gem', name: 'Gemini Agent', type: 'agent' },
    ]);
    expect(error.blocks.find((block) => block.id === 'py')?.reason).toContain('python');
    expect(error.blocks.find((block) => block.id === 'agent')?.reason).toContain('tool');
    expect(error.blocks.find((block) => block.id === 'reply')?.reason).toContain(
      '"Set-Cookie" is not allowed',
    );
    expect(error.blocks.find((block) => block.id === 'gem')?.reason).toContain('gemini-2.5-pro');
    expect(error.details).toContainEqual(
      expect.objectContaining({
        path: 'blocks.slack',
        blockId: 'slack',
        name: 'Post To Slack',
        type: 'slack',
      }),
    );
  });

  it('refuses a second trigger, a chat starter and an assistant turn', () => {
    const document = JSON.parse(fixtureText('agent.json'));
    const { blocks } = document.state;
    blocks.second = { ...blocks.start, id: 'second', name: 'Second', type: 'api_trigger' };
    blocks.start.type = 'starter';
    blocks.start.subBlocks.startWorkflow = { id: 'startWorkflow', type: 'dropdown', value: 'chat' };
    blocks.agent.subBlocks.messages.value.push({ role: 'assistant', content: 'Earlier answer' });

    const error = refusalOf(() => convertWorkflowFile(readWorkflowFile(document), noChildren));

    expect(error.blocks.map((block) => [block.id, block.reason])).toEqual([
      ['second', expect.stringContaining('second trigger')],
      ['start', expect.stringContaining('"chat"')],
      ['agent', expect.stringContaining('assistant')],
    ]);
  });

  it('refuses a loop count over the limit here, through the checks every saved graph gets', () => {
    const document = JSON.parse(fixtureText('loop-for.json'));
    document.state.blocks.loop.data.count = 5000;

    const error = refusalOf(() => convertWorkflowFile(readWorkflowFile(document), noChildren));

    expect(error.blocks).toEqual([
      expect.objectContaining({ id: 'loop', reason: expect.stringContaining('more than the limit of 1000') }),
    ]);
  });

  it('refuses a block inside a container that nothing connects, which Sim never runs', () => {
    const document = JSON.parse(fixtureText('loop-for.json'));
    document.state.edges = document.state.edges.filter(
      (edge: { sourceHandle: string }) => edge.sourceHandle !== 'loop-start-source',
    );

    const error = refusalOf(() => convertWorkflowFile(readWorkflowFile(document), noChildren));

    expect(error.blocks).toEqual([
      expect.objectContaining({ id: 'body', reason: expect.stringContaining('connected to nothing') }),
    ]);
  });
});

describe('readWorkflowFile', () => {
  it.each([
    ['text that is not JSON', '{"version": "1.0", "state": {', 'workflow'],
    ['a list', '[]', 'workflow'],
    ['no blocks', { version: '1.0', state: { edges: [] } }, 'workflow.blocks'],
    ['edges that are not a list', { blocks: {}, edges: {} }, 'workflow.edges'],
    [
      'a block without a type',
      { state: { blocks: { a: { id: 'a', subBlocks: {} } }, edges: [] } },
      'workflow.blocks.a.type',
    ],
    [
      'an edge without a target',
      { state: { blocks: {}, edges: [{ id: 'e', source: 'a' }] } },
      'workflow.edges[0]',
    ],
  ])('refuses %s with a 400 naming where', (_what, input, path) => {
    let error: unknown;
    try {
      readWorkflowFile(input);
    } catch (thrown) {
      error = thrown;
    }

    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).statusCode).toBe(400);
    expect((error as ValidationError).details?.map((detail) => detail.path)).toContain(path);
  });

  it('refuses a Sim file without a trigger with a 400', () => {
    const document = JSON.parse(fixtureText('note.json'));
    delete document.state.blocks.start;
    document.state.edges = [];

    expect(() => convertWorkflowFile(readWorkflowFile(document), noChildren)).toThrow(ValidationError);
  });

  it('takes our own graph, as an object or its JSON text, and checks it', () => {
    const graph = {
      blocks: {
        start: { id: 'start', type: 'start', name: 'Start', config: {} },
        fn: { id: 'fn', type: 'function', name: 'Fn', config: { code: 'return 1' } },
      },
      edges: [{ id: 'e1', source: 'start', target: 'fn' }],
      loops: {},
      parallels: {},
    };

    const file = readWorkflowFile(JSON.stringify({ name: 'Ours', state: graph }));

    expect(file).toMatchObject({ kind: 'graph', name: 'Ours' });
    expect(convertWorkflowFile(file, noChildren).graph.blocks.fn.config).toEqual({ code: 'return 1' });
    expect(() =>
      convertWorkflowFile(
        readWorkflowFile({ ...graph, edges: [{ id: 'e', source: 'start', target: 'nowhere' }] }),
        noChildren,
      ),
    ).toThrow(ValidationError);
  });
});

describe('convertWorkflowFile without a start block of ours', () => {
  it('refuses a trigger this service lacks as an unsupported block rather than a missing start', () => {
    const document = JSON.parse(fixtureText('trigger-manual.json'));
    document.state.blocks.trigger.type = 'schedule';

    const error = refusalOf(() => convertWorkflowFile(readWorkflowFile(document), noChildren));

    expect(error.blocks).toEqual([expect.objectContaining({ id: 'trigger', type: 'schedule' })]);
  });
});
