/**
 * Group commit for writes a service takes several of in one call (SQS SendMessageBatch, DynamoDB
 * BatchWriteItem). On the local server one process serves many runs at once, and each storage call
 * costs far more CPU than the bytes it carries; gathering the writes that queue up behind one call
 * into the next cuts the calls without waiting on purpose:
 *
 * - A write that comes while no call is on its way goes out at once, alone, with the service's
 *   single-item call: no added latency, and in Lambda (one request per container at a time) the
 *   same call as without the batcher.
 * - Writes that come while a call is on its way wait for it and go together in the next one, up to
 *   the service's limits (items, bytes).
 * - One call at a time, first come first sent: a caller's writes are accepted in the order it made
 *   them.
 * - Each caller's promise settles with its own item: resolved once the service accepted it,
 *   rejected with the error of its item alone (or of the whole call, when that failed).
 */

export interface WriteBatcherOptions<T> {
  /** The most items one call takes. */
  maxItemsPerBatch: number;
  /** The most bytes one call takes, summed by `sizeInBytesOf`; an item larger than that goes alone. */
  maxBytesPerBatch?: number;
  sizeInBytesOf?: (item: T) => number;
  /** Writes one item with the service's single-item call; rejects when it was not accepted. */
  writeOne: (item: T) => Promise<void>;
  /**
   * Writes two or more items in one call: resolves to each item's failure in order (undefined for
   * an accepted item), rejects when the call as a whole failed.
   */
  writeBatch: (items: readonly T[]) => Promise<ReadonlyArray<Error | undefined>>;
}

interface Waiting<T> {
  item: T;
  sizeInBytes: number;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export class WriteBatcher<T> {
  private readonly waiting: Waiting<T>[] = [];
  private sending = false;

  constructor(private readonly options: WriteBatcherOptions<T>) {
    const { maxItemsPerBatch, maxBytesPerBatch } = options;
    if (!Number.isInteger(maxItemsPerBatch) || maxItemsPerBatch < 1)
      throw new Error(`maxItemsPerBatch must be a whole number of at least 1, not ${maxItemsPerBatch}`);
    if (maxBytesPerBatch !== undefined && !(maxBytesPerBatch > 0))
      throw new Error(`maxBytesPerBatch must be a positive number of bytes, not ${maxBytesPerBatch}`);
    if (maxBytesPerBatch !== undefined && !options.sizeInBytesOf)
      throw new Error('maxBytesPerBatch needs sizeInBytesOf to size the items');
  }

  /** Resolves when the service has accepted `item`. */
  write(item: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const sizeInBytes = this.options.sizeInBytesOf?.(item) ?? 0;
      this.waiting.push({ item, sizeInBytes, resolve, reject });
      if (!this.sending) void this.sendWaiting();
    });
  }

  private async sendWaiting(): Promise<void> {
    this.sending = true;
    try {
      while (this.waiting.length > 0) await this.send(this.nextBatch());
    } finally {
      this.sending = false;
    }
  }

  /** The longest run of waiting writes, from the first, that fits one call (at least one). */
  private nextBatch(): Waiting<T>[] {
    const { maxItemsPerBatch, maxBytesPerBatch = Number.POSITIVE_INFINITY } = this.options;
    let count = 1;
    let bytes = this.waiting[0].sizeInBytes;
    while (count < maxItemsPerBatch && count < this.waiting.length) {
      bytes += this.waiting[count].sizeInBytes;
      if (bytes > maxBytesPerBatch) break;
      count++;
    }
    return this.waiting.splice(0, count);
  }

  private async send(batch: Waiting<T>[]): Promise<void> {
    if (batch.length === 1) {
      const [only] = batch;
      try {
        await this.options.writeOne(only.item);
        only.resolve();
      } catch (error) {
        only.reject(error);
      }
      return;
    }
    let failures: ReadonlyArray<Error | undefined>;
    try {
      failures = await this.options.writeBatch(batch.map((waiting) => waiting.item));
    } catch (error) {
      for (const waiting of batch) waiting.reject(error);
      return;
    }
    batch.forEach((waiting, index) => {
      const failure = failures[index];
      if (failure) waiting.reject(failure);
      else waiting.resolve();
    });
  }
}
