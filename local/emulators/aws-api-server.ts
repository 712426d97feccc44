/**
 * One loopback HTTP endpoint for the AWS APIs that the Lambda bundles call through their SDK clients
 * and that the local emulators have no emulator for (Step Functions, KMS, Secrets Manager, EventBridge
 * Scheduler, SES). The bundle mode points each SDK client at it (`AWS_ENDPOINT_URL_<SERVICE>`,
 * `SFN_ENDPOINT`). A request is handed to the service that claims it: the JSON protocols by their
 * `X-Amz-Target` prefix, the REST ones by path. Signatures are not checked: it is loopback only.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { closeServer, httpUrl, listenEphemeral, type RunningService } from './http-server';

export interface AwsApiRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  /** The operation of a JSON-protocol call (`AWSStepFunctions.StartExecution` → `StartExecution`). */
  operation?: string;
  body: Record<string, unknown>;
}

/** A refusal as the service words it: `name` is the error type the SDK turns into its exception. */
export class AwsApiError extends Error {
  constructor(
    name: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
    this.name = name;
  }
}

export interface AwsApiService {
  /** `X-Amz-Target` prefix (JSON protocols) or path prefix (REST protocols) of its calls. */
  claims: { target: string } | { path: string };
  handle(request: AwsApiRequest): Promise<Record<string, unknown>>;
}

function readJson(request: IncomingMessage): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.once('error', reject);
    request.once('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      try {
        resolve(text ? (JSON.parse(text) as Record<string, unknown>) : {});
      } catch (error) {
        reject(new AwsApiError('SerializationException', `Malformed JSON body: ${(error as Error).message}`));
      }
    });
  });
}

function answer(response: ServerResponse, status: number, body: unknown, errorType?: string): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(text)),
    ...(errorType ? { 'x-amzn-errortype': errorType } : {}),
  });
  response.end(text);
}

export async function startAwsApiServer(
  services: AwsApiService[],
  host = '127.0.0.1',
): Promise<RunningService> {
  const server = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const target = String(request.headers['x-amz-target'] ?? '');
    const service = services.find((candidate) =>
      'target' in candidate.claims
        ? target.startsWith(`${candidate.claims.target}.`)
        : !target && url.pathname.startsWith(candidate.claims.path),
    );
    try {
      if (!service)
        throw new AwsApiError('UnknownOperationException', `No local service for ${target || url.pathname}`);
      const body = await readJson(request);
      const result = await service.handle({
        method: request.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        operation: target ? target.slice(target.indexOf('.') + 1) : undefined,
        body,
      });
      answer(response, 200, result);
    } catch (error) {
      const refusal =
        error instanceof AwsApiError
          ? error
          : new AwsApiError('InternalFailure', (error as Error).message, 500);
      // JSON protocols read `__type`, REST ones the header; both read `message`.
      answer(response, refusal.status, { __type: refusal.name, message: refusal.message }, refusal.name);
    }
  });
  const port = await listenEphemeral(server, host);
  return { endpoint: httpUrl(host, port), stop: () => closeServer(server, (done) => server.close(done)) };
}
