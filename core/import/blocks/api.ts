/** Sim's `api` block: url, method, query and header tables, a JSON body. */
import { maxApiTimeoutInMs } from '../../engine/blocks/api';
import { type BlockMapping, warnIfEmptied } from '../mapping';
import { parseJsonWithReferences } from '../references';
import { numberValue, subText, subValue, tableToObject } from '../sim-values';

/** Sim's own default: five minutes, where a block of ours without one waits 30 seconds. */
const simDefaultTimeoutInMs = 300_000;

export const apiMapping: BlockMapping = {
  type: 'api',
  config(context) {
    const { sim } = context;
    const config: Record<string, unknown> = {
      url: subText(sim, 'url') ?? '',
      method: (subText(sim, 'method') ?? 'GET').toUpperCase(),
    };
    warnIfEmptied(context, 'params', 'The query parameters table', 'add the parameters again as query');
    warnIfEmptied(
      context,
      'headers',
      'The headers table',
      'add the headers again (keys as {{NAME}} references)',
    );
    const query = tableToObject(subValue(sim, 'params'));
    if (query && Object.keys(query).length > 0) config.query = query;
    const headers = tableToObject(subValue(sim, 'headers'));
    if (headers && Object.keys(headers).length > 0) config.headers = headers;
    const body = subValue(sim, 'body');
    if (body !== undefined) {
      const parsed = typeof body === 'string' ? parseJsonWithReferences(body, context.blockNames) : body;
      if (parsed === undefined) {
        // Sim sends text that is not JSON as it is, and so does ours when the body is text.
        config.body = body;
      } else config.body = parsed;
    }
    const timeout = numberValue(subValue(sim, 'timeout')) ?? simDefaultTimeoutInMs;
    if (timeout > maxApiTimeoutInMs) {
      context.refuse(
        `its timeout of ${timeout} ms is longer than the ${maxApiTimeoutInMs} ms an API block may wait here`,
      );
    }
    config.timeoutMs = timeout;
    const retries = numberValue(subValue(sim, 'retries'));
    if (retries !== undefined && retries > 0) {
      context.refuse(`it retries failed requests (${retries} retries); API blocks here do not retry`);
    }
    if (subText(sim, 'proxyUrl') !== undefined) {
      context.refuse('it sends its request through a proxy (proxyUrl); API blocks here do not');
    }
    return config;
  },
};
