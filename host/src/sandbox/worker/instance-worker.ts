// An instance worker: runs several sandbox instances (each a plugin with the SDK in its main-thread
// mode, or a component), one call at a time, and talks to the host only through shared memory: a
// doorbell for the worker and one channel per instance (docs/decisions.md "Several instances per
// worker"). Everything that can block (HTTP, the MCP client) is done by the host while this thread
// sleeps in Atomics.wait, so terminating the worker always stops the call it runs.
import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import { Bell, Channel, errorBytes, Fault, Op } from '../channel.js';
import { ComponentRunner } from './component-runner.js';
import { PluginRunner, type RunnerHooks } from './plugin-runner.js';
import type { WorkerBoot, WorkerControl, WorkerInit, WorkerLog } from './protocol.js';
import { messageOf } from '../../errors/index.js';
import { followNurseryHold } from '../../nursery/index.js';

// While reading its manifest the SDK tests `manifest instanceof Response`; the first touch of Node's
// global Response loads Node's bundled undici into this isolate, which cost every instance start
// 50-140 ms. An instance never fetches (its HTTP goes through the host's gate), so here Response is
// a stand-in that no value is an instance of.
Object.defineProperty(globalThis, 'Response', { value: class Response {}, configurable: true, writable: true });

const decoder = new TextDecoder();

interface Hosted {
  runner: PluginRunner | ComponentRunner;
  channel: Channel;
}

/** The instances this worker holds, by the slot the host gave each. */
const hosted = new Map<number, Hosted>();

function hooks(channel: Channel, slot: number): RunnerHooks {
  return {
    log: (level, line) => {
      const msg: WorkerLog = { kind: 'log', slot, level, line };
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

function send(channel: Channel, op: number, payload: Uint8Array, aux = 0): void {
  channel.write(op, payload, aux);
  channel.sendToHost();
}

/** Starts an instance in `slot` and answers READY or INIT_FAILED on its channel. */
async function add(slot: number, init: WorkerInit): Promise<void> {
  const channel = new Channel(init.sab);
  let runner: PluginRunner | ComponentRunner;
  try {
    const h = hooks(channel, slot);
    runner = init.abi === 'component' ? await ComponentRunner.start(init, h) : await PluginRunner.start(init, h);
  } catch (err) {
    return send(channel, Op.INIT_FAILED, errorBytes(messageOf(err)), Fault.TOOL_TRAP);
  }
  hosted.set(slot, { runner, channel });
  send(channel, Op.READY, new Uint8Array(0));
}

/** Control messages the host posted before ringing: instances to start, instances to drop. */
async function control(): Promise<void> {
  for (;;) {
    const received = parentPort ? receiveMessageOnPort(parentPort) : undefined;
    if (received === undefined) return;
    const msg = received.message as WorkerControl;
    if (msg.kind === 'add') await add(msg.slot, msg.init);
    else hosted.delete(msg.slot); // its plugin and memory go with the next GC
  }
}

/** Runs the CALL waiting in the instance's channel. */
async function serve(h: Hosted): Promise<void> {
  h.channel.waitForHost(); // the CALL was written before the bell rang
  const msg = h.channel.read(true);
  if (msg.op !== Op.CALL) return;
  const result = await h.runner.call(msg.data);
  if (result.ok) send(h.channel, Op.RESULT_OK, result.bytes);
  else send(h.channel, Op.RESULT_ERR, errorBytes(result.message), result.fault);
  await h.runner.finish();
}

async function main(boot: WorkerBoot): Promise<void> {
  followNurseryHold(boot.nursery);
  const bell = new Bell(boot.bell);
  for (;;) {
    bell.wait();
    if (bell.takeControls()) await control();
    const slot = bell.takeCall();
    const h = slot === 0 ? undefined : hosted.get(slot);
    if (h !== undefined) await serve(h);
  }
}

void main(workerData as WorkerBoot);
