import { describe, expect, it } from 'vitest';
import { failureOf, request, runner } from './support';
import { createQuickJsCodeRunner } from '../../../adapters/sandbox/quickjs';

describe('QuickJS code runner', () => {
  it('returns the value the code returns', async () => {
    const result = await runner.run(request('return { sum: 1 + 2, list: [true, null, "x"] }'));

    expect(result).toEqual({ result: { sum: 3, list: [true, null, 'x'] }, stdout: '' });
  });

  it('returns a string result exactly, whatever characters it holds', async () => {
    // Prepare: short and long (the host reads those two differently), with a NUL, lone surrogates, U+FFFD.
    const texts = [
      'Hello, Ada!',
      'ünïcødé ✓ 😀'.repeat(20),
      'before\u0000after',
      'x'.repeat(30) + '\u0000',
      'lone \ud800 high',
      'y'.repeat(30) + ' lone \udc00 low',
      'replacement \ufffd'.repeat(3),
      // As long as what the host would read: a lone surrogate's three U+FFFD, cut at the NUL.
      'z'.repeat(30) + '\ud800\u0000\u0000',
      '',
    ];

    // Act
    const results = [];
    for (const text of texts) {
      results.push(
        (await runner.run(request(`return ${JSON.stringify(text)}`, { maxResultBytes: 10_000 }))).result,
      );
    }

    // Assess
    expect(results).toEqual(texts);
  });

  it('returns undefined when the code returns nothing', async () => {
    expect((await runner.run(request('const x = 1;'))).result).toBeUndefined();
  });

  it('awaits promises and timers', async () => {
    const code = `
      const value = await Promise.resolve(20);
      await new Promise((resolve) => setTimeout(resolve, 5));
      return value + 1;`;

    expect((await runner.run(request(code))).result).toBe(21);
  });

  it('captures console output, one line per call, formatted like the console', async () => {
    const code = `
      console.log('hello', 42, { a: 'x', b: [1, { c: null }] }, undefined);
      console.error('bad', [1, 2]);
      console.info({ 'odd-key': () => 1 });`;

    const { stdout } = await runner.run(request(code));

    expect(stdout).toBe(
      "hello 42 { a: 'x', b: [ 1, { c: null } ] } undefined\nbad [ 1, 2 ]\n{ 'odd-key': [Function: odd-key] }\n",
    );
  });

  it('stops an infinite loop at the time limit', async () => {
    const error = await failureOf(runner.run(request('while (true) {}', { timeoutInMs: 100 })));

    expect(error.message).toBe('Function timed out after 100 ms');
    expect(error.kind).toBe('timeout');
  });

  it('stops a loop that catches the interruption', async () => {
    const code = 'for (;;) { try { while (true) {} } catch (error) {} }';

    const error = await failureOf(runner.run(request(code, { timeoutInMs: 100 })));

    expect(error.kind).toBe('timeout');
  });

  it('stops an endless chain of awaits', async () => {
    const error = await failureOf(runner.run(request('for (;;) await null;', { timeoutInMs: 100 })));

    expect(error.kind).toBe('timeout');
  });

  it('stops code that waits on a timer past the time limit', async () => {
    const code = 'await new Promise((resolve) => setTimeout(resolve, 60_000)); return 1';

    const error = await failureOf(runner.run(request(code, { timeoutInMs: 50 })));

    expect(error.message).toBe('Function timed out after 50 ms');
  });

  it('ends at once when it awaits a promise that nothing can settle', async () => {
    const error = await failureOf(
      runner.run(request('await new Promise(() => {})', { timeoutInMs: 60_000 })),
    );

    expect(error.message).toContain('never finished');
  });

  it('stops a run that holds more memory than its limit', async () => {
    const code = 'const keep = []; for (;;) keep.push({ a: 1, b: [1, 2, 3] });';

    const error = await failureOf(runner.run(request(code, { memoryLimitInBytes: 16 * 1024 * 1024 })));

    expect(error.message).toMatch(/out of memory/);
    expect(error.kind).toBe('memory');
  });

  it('ends a memory bomb of large allocations cleanly and keeps working afterwards', async () => {
    const small = createQuickJsCodeRunner({ heapLimitInBytes: 48 * 1024 * 1024 });
    const code = 'const keep = []; for (;;) keep.push(new Array(100000).fill(keep.length));';

    const error = await failureOf(small.run(request(code)));
    const after = await small.run(request('return "still fine"'));

    expect(error.message).toMatch(/out of memory/);
    expect(after.result).toBe('still fine');
  });

  it('stops runaway recursion with a stack overflow error', async () => {
    const error = await failureOf(runner.run(request('function f() { return f() + 1 } return f()')));

    expect(error.message).toMatch(/stack overflow/);
  });

  it('offers no host objects', async () => {
    const { result } = await runner.run(
      request('return [typeof process, typeof require, typeof fetch, typeof module, typeof Buffer]'),
    );

    expect(result).toEqual(['undefined', 'undefined', 'undefined', 'undefined', 'undefined']);
  });

  it('does not reach the host through the Function constructor', async () => {
    const code = `
      const viaThis = this.constructor.constructor('return typeof process')();
      const viaFunction = (() => {}).constructor.constructor('return this')().process;
      return [viaThis, viaFunction === undefined];`;

    expect((await runner.run(request(code))).result).toEqual(['undefined', true]);
  });

  it('passes thrown errors on as name and message', async () => {
    const reference = await failureOf(runner.run(request('return x + 1')));
    const type = await failureOf(runner.run(request('throw new TypeError("x is not a function")')));
    const text = await failureOf(runner.run(request('throw "plain text"')));
    const syntax = await failureOf(runner.run(request('return ]')));

    expect(reference.message).toBe('ReferenceError: x is not defined');
    expect(type.message).toBe('TypeError: x is not a function');
    expect(text.message).toBe('plain text');
    expect(syntax.message).toMatch(/^SyntaxError: /);
    expect(reference.kind).toBe('error');
  });

  it('fails on a result that JSON cannot hold', async () => {
    const error = await failureOf(runner.run(request('const o = {}; o.self = o; return o')));

    expect(error.message).toMatch(/^Function result is not JSON-serializable: TypeError/);
  });

  it('fails when a timer callback throws', async () => {
    const code =
      'setTimeout(() => { throw new Error("late") }, 1); await new Promise((r) => setTimeout(r, 10));';

    expect((await failureOf(runner.run(request(code)))).message).toBe('Error: late');
  });

  it('caps the console output it keeps', async () => {
    const capped = createQuickJsCodeRunner({ maxStdoutInBytes: 100 });

    const { stdout } = await capped.run(request('for (let i = 0; i < 1000; i++) console.log("line " + i)'));

    expect(stdout.length).toBeLessThan(150);
    expect(stdout).toMatch(/\[output truncated\]\n$/);
  });

  it('keeps runs apart', async () => {
    await runner.run(request('globalThis.leftover = 1; Object.prototype.polluted = true;'));

    const { result } = await runner.run(request('return [typeof leftover, typeof ({}).polluted]'));

    expect(result).toEqual(['undefined', 'undefined']);
  });

  it('runs 200 times in a row', async () => {
    const results: unknown[] = [];

    for (let i = 0; i < 200; i++) results.push((await runner.run(request(`return ${i} * 2`))).result);

    expect(results).toEqual(Array.from({ length: 200 }, (_, i) => i * 2));
  });

  it('frees every run: 1000 runs fit in a heap far smaller than 1000 runtimes', async () => {
    const tight = createQuickJsCodeRunner({ heapLimitInBytes: 32 * 1024 * 1024 });
    const code =
      'console.log("x"); const data = Array.from({ length: 1000 }, (_, i) => ({ i })); return data.length';

    let completed = 0;
    for (let i = 0; i < 1000; i++) if ((await tight.run(request(code))).result === 1000) completed++;

    expect(completed).toBe(1000);
  });
});

describe('QuickJS code runner under repeated object logging', () => {
  it('formats nested objects like Node and keeps working across thousands of logged objects', async () => {
    // Many object logs per run, over many runs: guards the host-side formatter against leaking sandbox memory.
    const code =
      "for (let i = 0; i < 50; i++) console.log({ i, tags: ['a', 'b'], nested: { ok: true } }); return 'done';";
    let last = await runner.run(request(code));
    for (let round = 0; round < 40; round++) last = await runner.run(request(code));
    expect(last.result).toBe('done');
    const lines = last.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(50);
    expect(lines[0]).toBe("{ i: 0, tags: [ 'a', 'b' ], nested: { ok: true } }");
  });
});
