/** A CheckpointStore in memory, for unit tests of the run use cases. */
import type { CheckpointStore } from '../../core/runs/log';

export class MemoryCheckpoints implements CheckpointStore {
  readonly items = new Map<string, unknown>();
  async save(id: string, value: unknown) {
    this.items.set(id, JSON.parse(JSON.stringify(value)));
  }
  async saveJson(id: string, json: string) {
    this.items.set(id, JSON.parse(json));
  }
  async load(id: string) {
    return this.items.get(id);
  }
  async delete(id: string) {
    this.items.delete(id);
  }
}
