// One sandbox instance: runs the plugin with the SDK in its main-thread mode inside this worker, and
// talks to the host only through the shared channel. Everything that can block (HTTP) is done by the
// host while this thread sleeps in Atomics.wait, so terminating the worker always cancels the call.
import { parentPort } from 'node:worker_threads';
import { CALL_POLL_NEXT, Channel, errorBytes, Fault, Op } from '../channel.js';
import { ComponentRunner } from './component-runner.js';
import { PluginRunner, type RunnerHooks } from './plugin-runner.js';
import type { LogMessage, WorkerInit } from './protocol.js';
import { messageOf } from '../../errors/index.js';

// While reading its manifest the SDK tests `manifest instanceof Response`; the first touch of Node's
// global Response loads Node's bundled undici into this isolate, which cost every instance start
// 50-140 ms. An instance never fetches (its HTTP goes through the host's gate), so here Response is
// a stand-in that no value is an instance of.
Object.defineProperty(globalThis, 'Response', { value: class Response {}, configurable: true, writable: true });

/** How long (ms) the worker polls for the next call before sleeping in Atomics.wait (see channel.ts). */
const WORKER_SPIN_MS = 0.1;
const MAX_MISSES = 4;
const decoder = new TextDecoder();

function hooks(channel: Channel): RunnerHooks {
  return {
    log: (level, line) => {
      const msg: LogMessage = { kind: 'log', level, line };
      parentPort?.postMessage(msg);
    },
    // the host does the request on its own thread while this one waits
    http: (payload) => {
      if (!channel.write(Op.HTTP_REQUEST, payload)) {
        throw new Error(
          `http_request refused: the request is ${payload.length} bytes; at most ${channel.capacity} fit`,
        );
      }
      channel.sendToHost();
      channel.waitForHost();
      const reply = channel.read(true);
      if (reply.op !== Op.HTTP_RESPONSE) throw new Error('http_request: protocol error');
      if (reply.aux < 0) throw new Error(decoder.decode(reply.data));
      const headersLength = new DataView(reply.data.buffer, reply.data.byteOffset).getUint32(0, true);
      const headers = decoder.decode(reply.data.subarray(4, 4 + headersLength));
      return { status: reply.aux, headers, body: reply.data.subarray(4 + headersLength) };
    },
    // in a worker, terminate() stops a call: an instrumented module's fuel check just refills
    preempt: () => 0x7fffffff,
    // toolgate:mcp: the host talks to the MCP client while this thread waits
    client: (op, payload) => {
      if (!channel.write(Op.CLIENT_REQUEST, payload, op)) {
        throw new Error(`toolgate:mcp: the request is ${payload.length} bytes; at most ${channel.capacity} fit`);
      }
      channel.sendToHost();
      channel.waitForHost();
      const reply = channel.read(true);
      if (reply.op !== Op.CLIENT_RESPONSE) throw new Error('toolgate:mcp: protocol error');
      return reply;
    },
  };
}

async function main(init: WorkerInit): Promise<void> {
  const channel = new Channel(init.sab);
  const send = (op: number, payload: Uint8Array, aux = 0): void => {
    channel.write(op, payload, aux);
    channel.sendToHost();
  };
  let runner: PluginRunner | ComponentRunner;
  try {
    const h = hooks(channel);
    runner = init.abi === 'component' ? await ComponentRunner.start(init, h) : await PluginRunner.start(init, h);
  } catch (err) {
    return send(Op.INIT_FAILED, errorBytes(messageOf(err)), Fault.TOOL_TRAP);
  }
  send(Op.READY, new Uint8Array(0));
  // Adaptive: after MAX_MISSES polls in a row that the next call did not arrive in time (calls are
  // not back to back, or host and worker share a core), stop polling, and poll again when the host
  // asks (CALL_POLL_NEXT: its own probe is the next call, channel.ts callAux), so a worker whose
  // polls do not pay stops spending CPU on them, and both sides probe on the same call.
  let misses = 0;
  let poll = true;
  for (;;) {
    const caught = channel.waitForHost(poll ? WORKER_SPIN_MS : 0);
    if (caught) misses = 0;
    else if (poll) misses++;
    const msg = channel.read(true);
    if (msg.op !== Op.CALL) continue;
    poll = misses < MAX_MISSES || (msg.aux & CALL_POLL_NEXT) !== 0;
    const result = await runner.call(msg.data);
    if (result.ok) send(Op.RESULT_OK, result.bytes);
    else send(Op.RESULT_ERR, errorBytes(result.message), result.fault);
    await runner.finish();
  }
}

// Set by the host's first (and only) message: the worker boots before it knows its module.
parentPort?.once('message', (message: unknown) => {
  void main(message as WorkerInit);
});
