/**
 * How the SDK clients reach an emulator that runs in a worker thread of this process (the local
 * stack's dynalite and fauxqs): the request the SDK built and serialised goes over a MessagePort to
 * that thread, which hands it to the emulator's own request listener (./in-process-transport.ts's
 * `plainDispatch`) and posts the answer back. It plugs in as an in-process dispatch
 * (`registerInProcessEndpoint`), so the clients, their lean middleware stack, the unsigned signer
 * and the SDK's error parsing are those of ./in-process-transport.ts; only where the emulator's work
 * runs changes: on the other core, off the thread that serves the API.
 *
 * A small Buffer is a view into Node's shared 8 KB allocation pool: posted as is, the whole pool would
 * be copied, and a transfer would take it from every other Buffer in it. So a body is copied once
 * into an ArrayBuffer of its own, which is then transferred ({@link ownBytes}).
 */
import type { MessagePort } from 'node:worker_threads';
import type { InProcessDispatch, InProcessRequest, InProcessResponse } from './in-process-transport';

interface CallMessage extends Omit<InProcessRequest, 'body'> {
  id: number;
  body?: Uint8Array;
}

type AnswerMessage =
  | { id: number; response: Omit<InProcessResponse, 'body'> & { body: Uint8Array } }
  | { id: number; error: { name: string; message: string } };

/** The calling side of a port: a dispatch, and how to end it. */
export interface CrossThreadClient {
  dispatch: InProcessDispatch;
  /** Calls waiting for an answer, and every call after this, fail with `reason`. */
  close(reason: Error): void;
}

/** Sends calls over `port` to a thread serving it with {@link serveOverPort}; `name` names it in errors. */
export function dispatchOverPort(port: MessagePort, name: string): CrossThreadClient {
  const waiting = new Map<number, { resolve(answer: InProcessResponse): void; reject(error: Error): void }>();
  let nextId = 0;
  let closedBy: Error | undefined;

  port.on('message', (answer: AnswerMessage) => {
    const call = waiting.get(answer.id);
    if (!call) return;
    waiting.delete(answer.id);
    if ('error' in answer) {
      call.reject(Object.assign(new Error(`${name}: ${answer.error.message}`), { name: answer.error.name }));
      return;
    }
    const { body } = answer.response;
    call.resolve({ ...answer.response, body: Buffer.from(body.buffer, body.byteOffset, body.byteLength) });
  });
  // The worker thread keeps the process alive while it runs; the port alone must not.
  port.unref();

  return {
    dispatch: (request) => {
      if (closedBy) return Promise.reject(closedBy);
      const id = nextId++;
      return new Promise((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        const message: CallMessage = {
          id,
          method: request.method,
          url: request.url,
          headers: request.headers,
          body: request.body && ownBytes(request.body),
        };
        port.postMessage(message, message.body ? [message.body.buffer as ArrayBuffer] : undefined);
      });
    },
    close(reason) {
      closedBy ??= reason;
      for (const call of waiting.values()) call.reject(closedBy);
      waiting.clear();
      port.close();
    },
  };
}

/** The serving side of a port: answers its calls with `dispatch`. */
export interface CrossThreadServer {
  /** Resolves when no call is being answered, or after `graceInMs` at the latest. */
  idle(graceInMs: number): Promise<void>;
  close(): void;
}

export function serveOverPort(port: MessagePort, dispatch: InProcessDispatch): CrossThreadServer {
  let answering = 0;
  let onIdle: (() => void) | undefined;
  port.on('message', (call: CallMessage) => {
    answering++;
    const body = call.body && Buffer.from(call.body.buffer, call.body.byteOffset, call.body.byteLength);
    dispatch({ method: call.method, url: call.url, headers: call.headers, body })
      .then(
        (response) => {
          const answer = { id: call.id, response: { ...response, body: ownBytes(response.body) } };
          port.postMessage(answer satisfies AnswerMessage, [answer.response.body.buffer as ArrayBuffer]);
        },
        (error: Error) =>
          port.postMessage({
            id: call.id,
            error: { name: error?.name ?? 'Error', message: error?.message ?? String(error) },
          } satisfies AnswerMessage),
      )
      .finally(() => {
        answering--;
        if (answering === 0) onIdle?.();
      });
  });
  return {
    idle: (graceInMs) =>
      answering === 0
        ? Promise.resolve()
        : new Promise((resolve) => {
            const grace = setTimeout(resolve, graceInMs);
            onIdle = () => {
              clearTimeout(grace);
              resolve();
            };
          }),
    close: () => port.close(),
  };
}

/** A copy of `body` in an ArrayBuffer of its own, to transfer: the caller's bytes are never detached. */
function ownBytes(body: Uint8Array): Uint8Array<ArrayBuffer> {
  return new Uint8Array(body);
}
