/** A local service (local/service.ts) with the API client that calls it as a user would. */
import type { LocalService } from '../local/service';
import { type ApiClient, apiClientOf } from './api-client';

export interface TestService extends ApiClient {
  readonly service: LocalService;
}

export function makeClient(service: LocalService): TestService {
  return { ...apiClientOf(service), service };
}
