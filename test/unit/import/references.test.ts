import { describe, expect, it } from 'vitest';
import {
  normalizeVariableReferences,
  parseJsonWithReferences,
  rewriteCodePlaceholders,
} from '../../../core/import/references';
import { convertWorkflowFile, readWorkflowFile } from '../../../core/import';
import { fixtureText, noChildren, runGraph } from './support';

const names = new Set(['start', 'fetch']);

describe('rewriteCodePlaceholders', () => {
  it.each([
    ['bare placeholders stay', 'return <fetch.data> + {{KEY}};', 'return <fetch.data> + {{KEY}};'],
    ['double quotes are split', 'const a = "Bearer {{KEY}}";', 'const a = "Bearer " + {{KEY}} + "";'],
    ['single quotes are split', "const a = '<start.name>!';", "const a = '' + <start.name> + '!';"],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: JavaScript source under test, not a template
    ['templates interpolate', 'const a = `T {{KEY}}`;', 'const a = `T ${ {{KEY}} }`;'],
    [
      'code inside a template interpolation stays code',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: JavaScript source under test, not a template
      'const a = `x ${ {a: <start.n>}.a } y {{KEY}}`;',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: JavaScript source under test, not a template
      'const a = `x ${ {a: <start.n>}.a } y ${ {{KEY}} }`;',
    ],
    [
      'escaped quotes do not end a string',
      'const a = "say \\"{{KEY}}\\"";',
      'const a = "say \\"" + {{KEY}} + "\\"";',
    ],
    ['a comparison is not a reference', 'return a <b && c> d;', 'return a <b && c> d;'],
    ['an unknown root is not a reference', 'const a = "<div.x>";', 'const a = "<div.x>";'],
    [
      'a comment keeps its text and loses its lookup',
      '// uses {{KEY}}\nreturn 1;',
      '// uses { {KEY}}\nreturn 1;',
    ],
    ['a block comment too', '/* <start.n> {{KEY}} */ return 1;', '/* <start.n> { {KEY}} */ return 1;'],
  ])('%s', (_what, code, expected) => {
    expect(rewriteCodePlaceholders(code, names)).toBe(expected);
  });
});

describe('parseJsonWithReferences', () => {
  it('quotes bare references and leaves those inside strings', () => {
    expect(parseJsonWithReferences('{"a": <start.n>, "b": "x <start.n>", "c": [{{KEY}}]}', names)).toEqual({
      a: '<start.n>',
      b: 'x <start.n>',
      c: ['{{KEY}}'],
    });
  });

  it('gives undefined for text that is not JSON even so', () => {
    expect(parseJsonWithReferences('{"a": <nowhere.n>}', names)).toBeUndefined();
  });
});

describe('normalizeVariableReferences', () => {
  it('writes variable names as Sim compares them, in every text', () => {
    expect(normalizeVariableReferences({ a: ['<variable.MyVar> and <variable.Count.x>'], b: 3 })).toEqual({
      a: ['<variable.myvar> and <variable.count.x>'],
      b: 3,
    });
  });

  it('lets a block read a variable written with capitals, as Sim does', async () => {
    const document = JSON.parse(fixtureText('variables.json'));
    document.state.blocks.after.subBlocks.code.value = 'return <variable.Counter> + 1;';
    const { graph } = convertWorkflowFile(readWorkflowFile(document), noChildren);

    const result = await runGraph(graph, { input: { n: 2 } });

    expect(result.output).toMatchObject({ result: 3 });
  });
});

describe('imported block names', () => {
  it('leave dots out, as Sim references do, with a warning', async () => {
    const document = JSON.parse(fixtureText('trigger-manual.json'));
    document.state.blocks.answer.name = 'Answer v1.2';
    document.state.blocks.reply = {
      ...document.state.blocks.answer,
      id: 'reply',
      name: 'Reply',
      type: 'response',
      subBlocks: {
        dataMode: { id: 'dataMode', type: 'dropdown', value: 'json' },
        data: { id: 'data', type: 'code', value: '{"n": <answerv12.result>}' },
      },
    };
    document.state.edges.push({ id: 'e-reply', source: 'answer', target: 'reply', sourceHandle: 'source' });

    const { graph, warnings } = convertWorkflowFile(readWorkflowFile(document), noChildren);
    const result = await runGraph(graph);

    expect(graph.blocks.answer.name).toBe('Answer v12');
    expect(warnings).toEqual([
      { blockId: 'answer', message: expect.stringContaining('renamed "Answer v12"') },
    ]);
    expect(result.output).toEqual({ n: 42 });
  });
});
