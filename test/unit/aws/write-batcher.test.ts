import { describe, expect, it } from 'vitest';
import { WriteBatcher, type WriteBatcherOptions } from '../../../adapters/aws/write-batcher';

/** A service whose calls stay on their way until the test lets them answer, one at a time. */
class FakeService {
  readonly calls: Array<{ kind: 'one' | 'batch'; items: string[] }> = [];
  private readonly answers: Array<() => void> = [];
  refuse = new Set<string>();
  failNextCall: Error | undefined;

  options(limits: Partial<WriteBatcherOptions<string>> = {}): WriteBatcherOptions<string> {
    return {
      maxItemsPerBatch: 3,
      writeOne: (item) =>
        this.call('one', [item]).then((failures) => {
          if (failures[0]) throw failures[0];
        }),
      writeBatch: (items) => this.call('batch', [...items]),
      ...limits,
    };
  }

  /** Lets the oldest call on its way answer, and waits for what the batcher does next. */
  async answer(): Promise<void> {
    this.answers.shift()?.();
    for (let turn = 0; turn < 10; turn++) await Promise.resolve();
  }

  private call(kind: 'one' | 'batch', items: string[]): Promise<Array<Error | undefined>> {
    this.calls.push({ kind, items });
    return new Promise((resolve, reject) => {
      this.answers.push(() => {
        const error = this.failNextCall;
        this.failNextCall = undefined;
        if (error) reject(error);
        else resolve(items.map((item) => (this.refuse.has(item) ? new Error(`refused ${item}`) : undefined)));
      });
    });
  }
}

/** Each promise's outcome as it is now: pending, ok, or the error's message. */
function watch(promises: Array<Promise<void>>): Array<string> {
  const outcomes = promises.map(() => 'pending');
  promises.forEach((promise, index) => {
    promise.then(
      () => {
        outcomes[index] = 'ok';
      },
      (error: Error) => {
        outcomes[index] = error.message;
      },
    );
  });
  return outcomes;
}

describe('WriteBatcher', () => {
  it('sends a lone write at once with the single-item call', async () => {
    // Prepare
    const service = new FakeService();
    const batcher = new WriteBatcher(service.options());

    // Act
    const outcomes = watch([batcher.write('a')]);
    const callsBeforeAnswer = service.calls.length;
    await service.answer();

    // Assess
    expect(callsBeforeAnswer).toBe(1);
    expect(service.calls).toEqual([{ kind: 'one', items: ['a'] }]);
    expect(outcomes).toEqual(['ok']);
  });

  it('gathers the writes that come while a call is on its way into the next call, in order', async () => {
    // Prepare
    const service = new FakeService();
    const batcher = new WriteBatcher(service.options());

    // Act
    const outcomes = watch(['a', 'b', 'c'].map((item) => batcher.write(item)));
    await service.answer();
    const afterFirst = [...outcomes];
    await service.answer();

    // Assess
    expect(service.calls).toEqual([
      { kind: 'one', items: ['a'] },
      { kind: 'batch', items: ['b', 'c'] },
    ]);
    expect(afterFirst).toEqual(['ok', 'pending', 'pending']);
    expect(outcomes).toEqual(['ok', 'ok', 'ok']);
  });

  it('keeps one call on its way at a time and no more items in a call than its limit', async () => {
    // Prepare
    const service = new FakeService();
    const batcher = new WriteBatcher(service.options({ maxItemsPerBatch: 3 }));

    // Act
    const outcomes = watch(['a', 'b', 'c', 'd', 'e', 'f'].map((item) => batcher.write(item)));
    const callsWhileFirstOnItsWay = service.calls.length;
    await service.answer();
    await service.answer();
    await service.answer();

    // Assess
    expect(callsWhileFirstOnItsWay).toBe(1);
    expect(service.calls.map((call) => call.items)).toEqual([['a'], ['b', 'c', 'd'], ['e', 'f']]);
    expect(outcomes).toEqual(['ok', 'ok', 'ok', 'ok', 'ok', 'ok']);
  });

  it('ends a batch before the byte limit, and sends an item larger than it alone', async () => {
    // Prepare
    const service = new FakeService();
    const batcher = new WriteBatcher(
      service.options({ maxItemsPerBatch: 10, maxBytesPerBatch: 5, sizeInBytesOf: (item) => item.length }),
    );

    // Act
    const outcomes = watch(['x', 'aa', 'bbb', 'cc', 'dddddddd', 'e'].map((item) => batcher.write(item)));
    for (let call = 0; call < 5; call++) await service.answer();

    // Assess
    expect(service.calls).toEqual([
      { kind: 'one', items: ['x'] },
      { kind: 'batch', items: ['aa', 'bbb'] },
      { kind: 'one', items: ['cc'] },
      { kind: 'one', items: ['dddddddd'] },
      { kind: 'one', items: ['e'] },
    ]);
    expect(outcomes).toEqual(['ok', 'ok', 'ok', 'ok', 'ok', 'ok']);
  });

  it('rejects only the caller whose item the service refused', async () => {
    // Prepare
    const service = new FakeService();
    service.refuse.add('c');
    const batcher = new WriteBatcher(service.options());

    // Act
    const outcomes = watch(['a', 'b', 'c', 'd'].map((item) => batcher.write(item)));
    await service.answer();
    await service.answer();

    // Assess
    expect(service.calls.map((call) => call.items)).toEqual([['a'], ['b', 'c', 'd']]);
    expect(outcomes).toEqual(['ok', 'ok', 'refused c', 'ok']);
  });

  it('rejects every caller of a call that failed as a whole, and goes on with the next', async () => {
    // Prepare
    const service = new FakeService();
    const batcher = new WriteBatcher(service.options());

    // Act
    const outcomes = watch(['a', 'b', 'c'].map((item) => batcher.write(item)));
    await service.answer();
    service.failNextCall = new Error('service unavailable');
    await service.answer();
    const later = watch([batcher.write('d')]);
    await service.answer();

    // Assess
    expect(service.calls.map((call) => call.items)).toEqual([['a'], ['b', 'c'], ['d']]);
    expect(outcomes).toEqual(['ok', 'service unavailable', 'service unavailable']);
    expect(later).toEqual(['ok']);
  });

  it('rejects a lone write whose single-item call failed, even when it throws before answering', async () => {
    // Prepare
    const batcher = new WriteBatcher<string>({
      maxItemsPerBatch: 10,
      writeOne: () => {
        throw new Error('bad item');
      },
      writeBatch: async () => [],
    });

    // Act
    const first = batcher.write('a');
    await expect(first).rejects.toThrow('bad item');
    const second = batcher.write('b');

    // Assess
    await expect(second).rejects.toThrow('bad item');
  });

  it('refuses limits that cannot be met, naming them', () => {
    // Prepare
    const service = new FakeService();

    // Act
    const noItems = () => new WriteBatcher(service.options({ maxItemsPerBatch: 0 }));
    const noBytes = () => new WriteBatcher(service.options({ maxBytesPerBatch: 0 }));
    const noSizes = () => new WriteBatcher(service.options({ maxBytesPerBatch: 100 }));

    // Assess
    expect(noItems).toThrow('maxItemsPerBatch must be a whole number of at least 1, not 0');
    expect(noBytes).toThrow('maxBytesPerBatch must be a positive number of bytes, not 0');
    expect(noSizes).toThrow('maxBytesPerBatch needs sizeInBytesOf');
  });
});
